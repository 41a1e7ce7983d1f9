/** Tenants whose names meet, and what a tenant delete leaves behind, through the runtime as a user sees it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;

beforeAll(async () => {
  rt = await spawnRuntime();
});

afterAll(async () => {
  await rt?.stop();
});

const search = (tenant: string, query: string) =>
  call(rt.url, 'POST', '/search/', { query, tenant_id: tenant, profile: 'document_text_semantic' });

describe('tenants whose schema names meet (integration)', () => {
  it('refuses a tenant that maps to another tenant schema names and leaves the other one whole', async () => {
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'nm:b_c', base_schemas: ['document_text'] }))
        .status,
    ).toBe(201);
    const { body } = await upload(rt.url, { tenant_id: 'nm:b_c' }, [
      { name: 'kept.md', content: 'The pangolin ledger stays with its tenant.' },
    ]);
    expect((await jobEnded(rt.url, body.job_id)).state).toBe('complete');

    const refused = await call(rt.url, 'POST', '/admin/tenants', {
      org_id: 'nm_b',
      tenant_id: 'c',
      base_schemas: ['document_text'],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      "Tenant 'nm_b:c' conflicts with tenant 'nm:b_c': both map to schema names agent_memories_nm_b_c, " +
        'audio_nm_b_c, code_nm_b_c, document_text_nm_b_c, image_nm_b_c, knowledge_graph_nm_b_c, ' +
        'video_frames_nm_b_c, wiki_nm_b_c',
    );
    expect((await call(rt.url, 'GET', '/admin/tenants/nm_b:c')).status).toBe(404);
    expect((await call(rt.url, 'GET', '/admin/organizations/nm_b')).status).toBe(404);
    expect((await call(rt.url, 'DELETE', '/admin/tenants/nm_b:c')).status).toBe(404);
    const hits = (await search('nm:b_c', 'pangolin ledger')).body.results;
    expect(hits.map((r: { source_doc_id: string }) => r.source_doc_id)).toEqual(['kept.md']);

    // Once the first tenant is gone, its names are free.
    expect((await call(rt.url, 'DELETE', '/admin/tenants/nm:b_c')).status).toBe(200);
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'nm_b:c' })).status).toBe(201);
    expect((await call(rt.url, 'DELETE', '/admin/tenants/nm_b:c')).status).toBe(200);
  });
});
