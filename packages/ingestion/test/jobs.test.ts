import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobRepository, type JobRecord, sourceKey } from '../src';

let emulators: Emulators;
const clock = { offset: 0 };
let jobs: DynamoJobRepository;
let counter = 0;
const id = () => `ingest_${Date.now().toString(16)}${counter++}`;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'ingestion-')));
  jobs = new DynamoJobRepository(undefined, () => Date.now() + clock.offset);
});

afterAll(async () => {
  await emulators?.stop();
});

const job = (jobId: string): JobRecord => ({
  job_id: jobId,
  tenant_id: 'acme:acme',
  state: 'queued',
  files: [{ name: 'a.md', key: `jobs/acme:acme/${jobId}/0`, size: 3, profile: 'document_text_semantic' }],
  origin: 'upload',
  created_at: Date.now(),
  updated_at: Date.now(),
  deliveries: 0,
});

describe('JobStore (integration: emulated DynamoDB)', () => {
  it('refuses a job id that exists', async () => {
    const jobId = id();
    await jobs.create(job(jobId));
    await expect(jobs.create(job(jobId))).rejects.toMatchObject({ status: 409 });
  });

  it('counts deliveries on claim and refuses to claim or settle a job that ended', async () => {
    const jobId = id();
    await jobs.create(job(jobId));
    expect((await jobs.claim(jobId))?.deliveries).toBe(1);
    expect((await jobs.claim(jobId))?.state).toBe('running');
    expect(await jobs.settle(jobId, 'complete', { error: undefined })).toBe(true);
    expect(await jobs.claim(jobId)).toBeUndefined();
    expect(await jobs.settle(jobId, 'failed', { error: 'late' })).toBe(false);
    const stored = await jobs.get(jobId);
    expect(stored).toMatchObject({ state: 'complete', deliveries: 2 });
    expect(stored?.error).toBeUndefined();
  });

  it('gives a tenant at most its number of slots, frees released ones and reclaims lapsed ones', async () => {
    const tenant = `slots_${counter++}:t`;
    expect(await jobs.acquireSlot(tenant, 'j1', 2, 60_000)).toBe(true);
    expect(await jobs.acquireSlot(tenant, 'j2', 2, 1_000)).toBe(true);
    expect(await jobs.acquireSlot(tenant, 'j3', 2, 60_000)).toBe(false);
    // A job that holds a slot keeps it when it asks again.
    expect(await jobs.acquireSlot(tenant, 'j1', 2, 60_000)).toBe(true);
    await jobs.releaseSlot(tenant, 'j1');
    expect(await jobs.acquireSlot(tenant, 'j3', 2, 60_000)).toBe(true);
    expect(await jobs.acquireSlot(tenant, 'j4', 2, 60_000)).toBe(false);
    // j2's holder died: once its lease lapses the slot is taken back.
    clock.offset = 2_000;
    try {
      expect(await jobs.acquireSlot(tenant, 'j4', 2, 60_000)).toBe(true);
    } finally {
      clock.offset = 0;
    }
    // Another tenant's slots are its own.
    expect(await jobs.acquireSlot(`${tenant}x`, 'j5', 2, 60_000)).toBe(true);
  });

  it('answers unfinished jobs idle longer than asked', async () => {
    const idle = id();
    const ended = id();
    await jobs.create(job(idle));
    await jobs.create(job(ended));
    await jobs.settle(ended, 'cancelled', { reason: 'r' });
    clock.offset = 10_000;
    try {
      const found = (await jobs.idle(5_000)).map((record) => record.job_id);
      expect(found).toContain(idle);
      expect(found).not.toContain(ended);
    } finally {
      clock.offset = 0;
    }
  });

  it('remembers the content hash each source was last ingested from, many at a time', async () => {
    const names = Array.from({ length: 130 }, (_, i) => `dir/file-${i}.md`);
    const wanted = [
      ...names.map((name) => ({ profile: 'p', name })),
      { profile: 'other', name: 'dir/file-0.md' },
    ];
    expect((await jobs.sources('acme:acme', wanted)).size).toBe(0);
    await jobs.recordSources(
      'acme:acme',
      names.map((name, i) => ({
        profile: 'p',
        name,
        record: { content_hash: `h${i}`, job_id: 'j', chunks: i, updated_at: 1 },
      })),
    );
    const found = await jobs.sources('acme:acme', wanted);
    expect(found.size).toBe(130);
    expect(found.get(sourceKey('p', 'dir/file-129.md'))).toMatchObject({ content_hash: 'h129', chunks: 129 });
    expect(found.has(sourceKey('other', 'dir/file-0.md'))).toBe(false);
    expect((await jobs.sources('other:other', wanted)).size).toBe(0);
  });
});
