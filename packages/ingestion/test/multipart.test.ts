import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseMultipart } from '../src';

async function eventOf(form: FormData): Promise<APIGatewayProxyEventV2> {
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await request.arrayBuffer());
  return {
    headers: { 'content-type': request.headers.get('content-type')! },
    body: body.toString('base64'),
    isBase64Encoded: true,
  } as unknown as APIGatewayProxyEventV2;
}

describe('parseMultipart', () => {
  it('answers the fields and every file with its name and bytes', async () => {
    const form = new FormData();
    form.set('tenant_id', 'acme');
    form.append('file', new Blob([Buffer.from('# A')]), 'docs/a.md');
    form.append('file', new Blob([Buffer.from([0, 1, 2])]), 'b.bin');
    const parsed = await parseMultipart(await eventOf(form), 1024);
    expect(parsed.fields).toEqual({ tenant_id: 'acme' });
    expect(parsed.files.map((file) => [file.field, file.name, [...file.bytes]])).toEqual([
      ['file', 'docs/a.md', [...Buffer.from('# A')]],
      ['file', 'b.bin', [0, 1, 2]],
    ]);
  });

  it('answers 413 for a file over the limit', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(2048)]), 'big.txt');
    await expect(parseMultipart(await eventOf(form), 1024)).rejects.toMatchObject({ status: 413 });
  });

  it('answers 415 for a body that is not multipart', async () => {
    const event = {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    } as unknown as APIGatewayProxyEventV2;
    expect(() => parseMultipart(event, 1024)).toThrow(/multipart\/form-data/);
  });

  it('answers 400 for a multipart body without its boundary', async () => {
    const event = {
      headers: { 'content-type': 'multipart/form-data' },
      body: 'x',
    } as unknown as APIGatewayProxyEventV2;
    await expect(parseMultipart(event, 1024)).rejects.toMatchObject({ status: 400 });
  });
});
