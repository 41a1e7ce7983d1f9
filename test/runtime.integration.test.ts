import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
beforeAll(async () => {
  rt = await spawnRuntime();
});
afterAll(async () => {
  await rt?.stop();
});

describe('local runtime (integration)', () => {
  it('answers /health with the state of every backing service', async () => {
    const { status, body } = await call(rt.url, 'GET', '/health');
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    for (const service of ['dynamodb', 's3', 'sqs', 'search_backend']) {
      expect(body.services[service].status).toBe('ok');
    }
  });

  it('serves the OpenAPI document of every route at /openapi.json, as docs/openapi.json holds it', async () => {
    const { status, body, headers } = await call(rt.url, 'GET', '/openapi.json');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(body).toEqual(
      JSON.parse(readFileSync(path.join(import.meta.dirname, '../docs/openapi.json'), 'utf8')),
    );
    expect(Object.keys(body.paths)).toContain('/openapi.json');
  });

  it('answers unknown routes 404 and wrong methods 405 in the error shape', async () => {
    expect(await call(rt.url, 'GET', '/no/such/route')).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' },
    });
    const wrong = await call(rt.url, 'PATCH', '/admin/tenants/acme');
    expect(wrong).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } });
    expect(wrong.headers.get('allow')).toBe('GET, DELETE');
  });

  it("answers 413 for a body over Lambda's request limit without reading it all", async () => {
    const big = `{"tenant_id":"${'a'.repeat(11 * 1024 * 1024)}"}`;
    const { status, body } = await call(rt.url, 'POST', '/admin/tenants', big);
    expect(status).toBe(413);
    expect(body.detail).toMatch(/6225920 bytes as the function receives it/);
    expect(body.detail).not.toContain('/ingestion/uploads');
  });

  it('refuses a 4.7 MB direct upload, which base64 makes too large for Lambda, pointing to the presigned route', async () => {
    // 4.7 MB of file is 6.27 MB of base64 in the event: under the 10 MB API Gateway takes, over Lambda's 6 MiB.
    const answer = await upload(rt.url, { tenant_id: 'acme' }, [
      { name: 'big.txt', content: 'a'.repeat(4_700_000) },
    ]);
    expect(answer.status).toBe(413);
    expect(answer.body.detail).toContain('a binary body counts base64-encoded (at most 4669440 bytes');
    expect(answer.body.detail).toContain('Upload larger files through POST /ingestion/uploads');
    // Just under the limit, the upload reaches the handler (which finds no such tenant).
    const fits = await upload(rt.url, { tenant_id: 'nobody' }, [
      { name: 'fits.txt', content: 'a'.repeat(4_600_000) },
    ]);
    expect(fits.status).toBe(404);
  });

  it('answers malformed JSON with 422 and a form body with 415', async () => {
    expect((await call(rt.url, 'POST', '/admin/tenants', '{"tenant_id":')).status).toBe(422);
    const form = await call(rt.url, 'POST', '/admin/tenants', 'tenant_id=acme', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
  });

  it('answers 400 for malformed percent-encoding in a path parameter', async () => {
    expect((await call(rt.url, 'GET', '/admin/tenants/%E0%A4%A')).status).toBe(400);
  });

  it('serves the admin walk-through of the README', async () => {
    expect(
      await call(rt.url, 'POST', '/admin/organizations', {
        org_id: 'acme',
        org_name: 'Acme Corp',
        created_by: 'alice',
      }),
    ).toMatchObject({ status: 201, body: { org_id: 'acme', org_name: 'Acme Corp', tenant_count: 0 } });
    const created = await call(rt.url, 'POST', '/admin/tenants', {
      org_id: 'acme',
      tenant_id: 'prod',
      created_by: 'alice',
    });
    expect(created).toMatchObject({
      status: 201,
      body: { tenant_full_id: 'acme:prod', status: 'active', schemas_deployed: ['video_frames'] },
    });
    expect((await call(rt.url, 'GET', '/admin/tenants/acme:prod')).body.tenant_full_id).toBe('acme:prod');
    expect((await call(rt.url, 'GET', '/admin/tenants/acme%3Aprod')).body.tenant_full_id).toBe('acme:prod');
    expect((await call(rt.url, 'GET', '/admin/organizations/acme/tenants')).body).toMatchObject({
      org_id: 'acme',
      total_count: 1,
    });
    expect((await call(rt.url, 'PUT', '/admin/tenants/acme:prod/tier', { tier: 'pro' })).body).toMatchObject({
      tenant_id: 'acme:prod',
      tier: 'pro',
    });
    expect((await call(rt.url, 'GET', '/admin/tenants/acme:prod/tier')).body.tier).toBe('pro');
    expect((await call(rt.url, 'POST', '/admin/reconcile-orphans?dry_run=true')).body).toMatchObject({
      dry_run: true,
      orphan_schemas: [],
    });
    expect((await call(rt.url, 'GET', '/admin/schemas/drift')).body).toEqual({ drifted: [] });
    expect(await call(rt.url, 'DELETE', '/admin/tenants/acme:prod')).toMatchObject({
      status: 200,
      body: { status: 'deleted', schemas_deleted: 1, deleted_schemas: ['video_frames_acme_prod'] },
    });
    expect(await call(rt.url, 'DELETE', '/admin/organizations/acme')).toMatchObject({
      status: 200,
      body: { status: 'deleted', org_id: 'acme', tenants_deleted: 0 },
    });
  });

  it('lets exactly one of 10 concurrent HTTP creates of one tenant succeed', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'race' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });
});
