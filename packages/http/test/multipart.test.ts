import { MAX_REQUEST_BODY_BYTES } from '@tessera/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpRoute, parseMultipart, reply } from '../src';

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

  /** A direct upload of one file of `bytes`, as API Gateway hands it to the function (base64). */
  async function uploadOf(bytes: number): Promise<APIGatewayProxyEventV2> {
    const form = new FormData();
    form.set('tenant_id', 'acme');
    form.append('file', new Blob(['a'.repeat(bytes)]), 'big.txt');
    return { ...(await eventOf(form)), rawPath: '/ingestion/upload' };
  }

  it("answers 413 for a body over Lambda's request limit as received (base64), naming the presigned route", async () => {
    const event = await uploadOf(4_700_000);
    expect(event.body!.length).toBeGreaterThan(MAX_REQUEST_BODY_BYTES);
    await expect(async () => parseMultipart(event, 5 * 1024 ** 3)).rejects.toMatchObject({
      status: 413,
      message: expect.stringContaining('Upload larger files through POST /ingestion/uploads'),
    });
  });

  it('parses a body just under that limit', async () => {
    const form = await parseMultipart(await uploadOf(4_600_000), 5 * 1024 ** 3);
    expect(form.fields.tenant_id).toBe('acme');
    expect(form.files[0]!.bytes.length).toBe(4_600_000);
  });
});

/** The raw body of a form, and an event carrying `bytes` as its body under the form's content type. */
async function rawForm(form: FormData): Promise<{ type: string; bytes: Buffer }> {
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { type: request.headers.get('content-type')!, bytes: Buffer.from(await request.arrayBuffer()) };
}
const eventWith = (type: string, bytes: Buffer) =>
  ({
    headers: { 'content-type': type },
    body: bytes.toString('base64'),
    isBase64Encoded: true,
  }) as unknown as APIGatewayProxyEventV2;

describe('parseMultipart given hostile forms', () => {
  it('answers 400 for a body cut inside a file part, and after one, without an unhandled stream error', async () => {
    const form = new FormData();
    form.set('tenant_id', 'acme');
    form.append('file', new Blob([Buffer.alloc(4096, 'a')]), 'a.md');
    const { type, bytes } = await rawForm(form);
    const inside = bytes.indexOf('aaaa') + 100;
    const afterPart = bytes.lastIndexOf('\r\n--');
    for (const cut of [inside, afterPart, afterPart + 4, bytes.length - 3]) {
      await expect(parseMultipart(eventWith(type, bytes.subarray(0, cut)), 1 << 20)).rejects.toMatchObject({
        status: 400,
        detail: expect.stringMatching(/^Malformed multipart body/),
      });
    }
    // Garbage where a part's headers belong, and a part without a blank line before its body.
    const boundary = type.split('boundary=')[1]!;
    for (const corrupt of [
      `--${boundary}\r\n\u0000\u0001\u0002garbage`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\nxyz`,
    ]) {
      await expect(parseMultipart(eventWith(type, Buffer.from(corrupt)), 1 << 20)).rejects.toMatchObject({
        status: 400,
      });
    }
  });

  it('refuses a form of more than 50 fields with 413 naming the limit, rather than dropping the rest', async () => {
    const form = new FormData();
    for (let i = 0; i < 50; i++) form.set(`f${i}`, 'x');
    form.set('tenant_id', 'acme');
    const { type, bytes } = await rawForm(form);
    await expect(parseMultipart(eventWith(type, bytes), 1024)).rejects.toMatchObject({
      status: 413,
      detail: 'The form has more than 50 fields',
    });
  });

  it('refuses a field value over its limit and a field given twice, rather than cutting or choosing one', async () => {
    const long = new FormData();
    long.set('tenant_id', 'a'.repeat(1024 * 1024 + 1));
    const big = await rawForm(long);
    await expect(parseMultipart(eventWith(big.type, big.bytes), 1024)).rejects.toMatchObject({
      status: 413,
    });
    const twice = new FormData();
    twice.append('tenant_id', 'acme');
    twice.append('tenant_id', 'other');
    const raw = await rawForm(twice);
    await expect(parseMultipart(eventWith(raw.type, raw.bytes), 1024)).rejects.toMatchObject({
      status: 422,
      detail: [{ type: 'value_error', loc: ['body', 'tenant_id'], msg: 'Field given more than once' }],
    });
  });
});

describe('httpRoute with a multipart form', () => {
  const context = { awsRequestId: 'r1' } as unknown as Context;
  const route = httpRoute(
    {
      query: z.object({ wait: z.string().optional() }),
      form: {
        fields: z.object({ tenant_id: z.string(), profile: z.string().min(1).optional() }),
        file: 'file',
      },
      maxFileBytes: 1024,
    },
    ({ form }) =>
      reply(202, { fields: form.fields, files: form.files.map((file) => [file.name, file.bytes.length]) }),
  );
  const call = async (event: APIGatewayProxyEventV2) => {
    const response = await route(event, context);
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };

  it('validates the fields and gives the files of the file field only', async () => {
    const form = new FormData();
    form.set('tenant_id', 'acme');
    form.append('file', new Blob([Buffer.from('# A')]), 'docs/a.md');
    form.append('other', new Blob([Buffer.from('x')]), 'ignored.txt');
    expect(await call(await eventOf(form))).toEqual({
      status: 202,
      body: { fields: { tenant_id: 'acme' }, files: [['docs/a.md', 3]] },
    });
  });

  it('answers 422 in the validation shape for a missing field, at body', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('# A')]), 'a.md');
    const answer = await call(await eventOf(form));
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([
      { type: 'missing', loc: ['body', 'tenant_id'], msg: 'Field required', input: {} },
    ]);
  });

  it('answers 413 for a file over the limit and 415 for a body that is not multipart', async () => {
    const form = new FormData();
    form.set('tenant_id', 'acme');
    form.append('file', new Blob([Buffer.alloc(2048)]), 'big.txt');
    expect((await call(await eventOf(form))).status).toBe(413);
    const json = {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    } as unknown as APIGatewayProxyEventV2;
    const refused = await call(json);
    expect(refused.status).toBe(415);
    expect(refused.body.detail).toMatch(/multipart\/form-data with a 'file' field/);
  });
});
