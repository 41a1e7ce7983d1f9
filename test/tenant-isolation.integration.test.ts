/** Tenants whose names meet, and what a tenant delete leaves behind, through the runtime as a user sees it. */
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEnded, sseFrames, upload } from './support/ingestion';
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

describe('a tenant delete (integration)', () => {
  const s3 = () =>
    new S3Client({
      endpoint: rt.emulatorUrl,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  const objectsOf = async (tenant: string) => {
    const keys: string[] = [];
    for (const prefix of [`jobs/${tenant}/`, `incoming/${tenant}/`, `tenants/${tenant}/`]) {
      const listed = await s3().send(
        new ListObjectsV2Command({ Bucket: 'tessera-local-uploads', Prefix: prefix }),
      );
      keys.push(...(listed.Contents ?? []).map((object) => object.Key!));
    }
    return keys;
  };

  it('leaves nothing of the tenant behind: a tenant created again under its id starts empty', async () => {
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'gone', base_schemas: ['document_text'] }))
        .status,
    ).toBe(201);
    const content = 'The okapi census of the previous owner.';
    const first = await upload(rt.url, { tenant_id: 'gone' }, [{ name: 'census.md', content }]);
    expect((await jobEnded(rt.url, first.body.job_id)).state).toBe('complete');
    await s3().send(
      new PutObjectCommand({
        Bucket: 'tessera-local-uploads',
        Key: 'tenants/gone:gone/private/plan.md',
        Body: 'Secret plan.',
      }),
    );
    // A presigned upload whose file never comes: queued under a 6-hour lease.
    const presigned = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'gone',
      filename: 'never.pdf',
      size: 1000,
    });
    expect(presigned.status).toBe(201);
    expect(await objectsOf('gone:gone')).toHaveLength(2);

    expect((await call(rt.url, 'DELETE', '/admin/tenants/gone')).status).toBe(200);
    expect(await objectsOf('gone:gone')).toEqual([]);
    // The queued job was settled cancelled: its stream ends with it, and it is no longer anyone's queue.
    const frames = await sseFrames(`${rt.url}${presigned.body.events_url}`);
    expect(frames.map((frame) => frame.data.type)).toEqual(['connected', 'status', 'status', 'end']);
    expect(frames[2]!.data).toMatchObject({ state: 'cancelled', message: 'Tenant gone:gone was deleted' });
    expect((await call(rt.url, 'GET', `/ingestion/${first.body.job_id}/events`)).status).toBe(404);

    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'gone', base_schemas: ['document_text'] }))
        .status,
    ).toBe(201);
    expect((await call(rt.url, 'GET', '/events/queues?tenant_id=gone')).body.queues).toEqual([]);
    // The first upload of the new tenant is indexed, not skipped as the previous owner's content.
    const again = await upload(rt.url, { tenant_id: 'gone', wait: 'true' }, [{ name: 'census.md', content }]);
    expect(again.body).toMatchObject({ status: 'complete', documents_fed: 1, files_skipped: 0 });
    // The previous owner's own objects are not there to be indexed.
    const start = await call(rt.url, 'POST', '/ingestion/start', { tenant_id: 'gone', prefix: 'private/' });
    expect(start.status).toBe(400);
    const hits = (await search('gone', 'secret plan okapi census')).body.results;
    expect(hits.map((r: { source_doc_id: string }) => r.source_doc_id)).toEqual(['census.md']);
  });
});
