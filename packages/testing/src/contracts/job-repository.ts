/** The contract of `JobRepository`: conditional job changes, idle jobs, source hashes and leased slots. */
import { type JobRecord, type JobRepository, sourceKey } from '@tessera/ingestion';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractClock, unique } from './support';

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

export function jobRepositoryContract(label: string, make: (now: () => number) => JobRepository): void {
  describe(`${label} (JobRepository contract)`, () => {
    const clock = contractClock();
    let jobs: JobRepository;
    beforeAll(() => {
      jobs = make(clock.now);
    });

    it('refuses a job id that exists', async () => {
      const jobId = unique('ingest');
      await jobs.create(job(jobId));
      await expect(jobs.create(job(jobId))).rejects.toMatchObject({ status: 409 });
      expect(await jobs.state(jobId)).toBe('queued');
      expect(await jobs.get(unique('absent'))).toBeUndefined();
    });

    it('counts deliveries on claim and refuses to claim or settle a job that ended', async () => {
      const jobId = unique('ingest');
      await jobs.create(job(jobId));
      expect((await jobs.claim(jobId))?.deliveries).toBe(1);
      expect((await jobs.claim(jobId))?.state).toBe('running');
      expect(await jobs.settle(jobId, 'complete', { error: undefined })).toBe(true);
      expect(await jobs.claim(jobId)).toBeUndefined();
      expect(await jobs.settle(jobId, 'failed', { error: 'late' })).toBe(false);
      const stored = await jobs.get(jobId);
      expect(stored).toMatchObject({ state: 'complete', deliveries: 2 });
      expect(stored?.error).toBeUndefined();
      expect(await jobs.state(jobId)).toBe('complete');
    });

    it('gives a tenant at most its number of slots, frees released ones and reclaims lapsed ones', async () => {
      const tenant = `${unique('slots')}:t`;
      expect(await jobs.acquireSlot(tenant, 'j1', 2, 60_000)).toBe(true);
      // A lease long enough that it cannot lapse by itself on a loaded machine before the clock is moved on.
      expect(await jobs.acquireSlot(tenant, 'j2', 2, 15_000)).toBe(true);
      expect(await jobs.acquireSlot(tenant, 'j3', 2, 60_000)).toBe(false);
      // A job that holds a slot keeps it when it asks again.
      expect(await jobs.acquireSlot(tenant, 'j1', 2, 60_000)).toBe(true);
      await jobs.releaseSlot(tenant, 'j1');
      expect(await jobs.acquireSlot(tenant, 'j3', 2, 60_000)).toBe(true);
      expect(await jobs.acquireSlot(tenant, 'j4', 2, 60_000)).toBe(false);
      // j2's holder died: once its lease lapses the slot is taken back.
      clock.offset = 16_000;
      try {
        expect(await jobs.acquireSlot(tenant, 'j4', 2, 60_000)).toBe(true);
      } finally {
        clock.offset = 0;
      }
      // Another tenant's slots are its own.
      expect(await jobs.acquireSlot(`${tenant}x`, 'j5', 2, 60_000)).toBe(true);
    });

    it('answers unfinished jobs idle longer than asked', async () => {
      const idle = unique('ingest');
      const ended = unique('ingest');
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

    it('lists a tenant jobs and forgets its jobs, sources and slots, and only its own', async () => {
      const tenant = `${unique('forget')}:t`;
      // `<tenant>x` starts with the tenant id as text: it is another tenant all the same.
      const other = `${tenant}x`;
      const ids = [unique('ingest'), unique('ingest'), unique('ingest')];
      await jobs.create({ ...job(ids[0]!), tenant_id: tenant });
      await jobs.create({ ...job(ids[1]!), tenant_id: tenant });
      await jobs.create({ ...job(ids[2]!), tenant_id: other });
      await jobs.settle(ids[1]!, 'complete', {});
      const record = { content_hash: 'h', job_id: 'j', chunks: 1, updated_at: 1 };
      const files = Array.from({ length: 30 }, (_, i) => ({ profile: `p${i % 2}`, name: `f${i}.md` }));
      await jobs.recordSources(
        tenant,
        files.map((file) => ({ ...file, record })),
      );
      await jobs.recordSources(
        other,
        files.map((file) => ({ ...file, record })),
      );
      expect(await jobs.acquireSlot(tenant, 'h1', 1, 60_000)).toBe(true);
      expect(await jobs.acquireSlot(other, 'h2', 1, 60_000)).toBe(true);
      expect((await jobs.tenantJobs(tenant)).map((j) => j.job_id).sort()).toEqual([ids[0], ids[1]].sort());

      await jobs.forgetTenant(tenant);
      await jobs.forgetTenant(tenant);
      expect(await jobs.tenantJobs(tenant)).toEqual([]);
      expect(await jobs.get(ids[0]!)).toBeUndefined();
      expect((await jobs.sources(tenant, files)).size).toBe(0);
      expect(await jobs.acquireSlot(tenant, 'h3', 1, 60_000)).toBe(true);
      // The other tenant keeps everything.
      expect((await jobs.tenantJobs(other)).map((j) => j.job_id)).toEqual([ids[2]]);
      expect((await jobs.sources(other, files)).size).toBe(30);
      expect(await jobs.acquireSlot(other, 'h4', 1, 60_000)).toBe(false);
    });

    it('remembers the content hash each source was last ingested from, many at a time', async () => {
      const tenant = `${unique('sources')}:t`;
      const names = Array.from({ length: 130 }, (_, i) => `dir/file-${i}.md`);
      const wanted = [
        ...names.map((name) => ({ profile: 'p', name })),
        { profile: 'other', name: 'dir/file-0.md' },
      ];
      expect((await jobs.sources(tenant, wanted)).size).toBe(0);
      await jobs.recordSources(
        tenant,
        names.map((name, i) => ({
          profile: 'p',
          name,
          record: { content_hash: `h${i}`, job_id: 'j', chunks: i, updated_at: 1 },
        })),
      );
      const found = await jobs.sources(tenant, wanted);
      expect(found.size).toBe(130);
      expect(found.get(sourceKey('p', 'dir/file-129.md'))).toMatchObject({
        content_hash: 'h129',
        chunks: 129,
      });
      expect(found.has(sourceKey('other', 'dir/file-0.md'))).toBe(false);
      expect((await jobs.sources(`${tenant}other`, wanted)).size).toBe(0);
    });
  });
}
