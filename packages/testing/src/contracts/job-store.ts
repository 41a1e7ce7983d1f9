/** The contract of a job store (slots and leases moved conditionally). */
import type { JobStore, StoredJob, StoredRun } from '@tessera/jobs';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export const storedJob = (tenantId: string, patch: Partial<StoredJob> = {}): StoredJob => ({
  tenant_id: tenantId,
  job_id: unique('job'),
  name: 'digest',
  schedule: 'rate(1 minute)',
  timezone: 'UTC',
  query: 'what is new',
  agent_name: 'search_agent',
  post_actions: [{ type: 'wiki' }],
  created_at: 1_000,
  next_run: 61_000,
  run_count: 0,
  last_run: null,
  lease_until: 0,
  ...patch,
});

const run = (id: string, patch: Partial<StoredRun> = {}): StoredRun => ({
  workflow_id: id,
  state: 'running',
  scheduled_for: 61_000,
  started_at: 61_100,
  finished_at: null,
  error: null,
  ...patch,
});

export function jobStoreContract(name: string, make: () => JobStore) {
  describe(`JobStore contract: ${name}`, () => {
    it('creates a job once, reads, lists oldest first and removes it', async () => {
      const store = make();
      const tenant = unique('t');
      const first = storedJob(tenant, { created_at: 5 });
      const second = storedJob(tenant, { created_at: 9 });
      expect(await store.create(second)).toBe(true);
      expect(await store.create(first)).toBe(true);
      expect(await store.create(first)).toBe(false);
      expect(await store.get(tenant, first.job_id)).toEqual(first);
      expect((await store.list(tenant)).map((j) => j.job_id)).toEqual([first.job_id, second.job_id]);
      expect(await store.list(unique('t'))).toEqual([]);
      expect(await store.remove(tenant, first.job_id)).toBe(true);
      expect(await store.remove(tenant, first.job_id)).toBe(false);
      expect(await store.get(tenant, first.job_id)).toBeUndefined();
    });

    it('answers due jobs and moves a slot only from the value it still has', async () => {
      const store = make();
      const tenant = unique('t');
      const job = storedJob(tenant, { next_run: 1_000_000 });
      await store.create(job);
      expect((await store.due(999_999)).some((j) => j.job_id === job.job_id)).toBe(false);
      expect((await store.due(1_000_000)).some((j) => j.job_id === job.job_id)).toBe(true);
      const moves = await Promise.all([
        store.advance(tenant, job.job_id, 1_000_000, 1_060_000),
        store.advance(tenant, job.job_id, 1_000_000, 1_060_000),
      ]);
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect((await store.get(tenant, job.job_id))!.next_run).toBe(1_060_000);
      expect(await store.advance(tenant, 'absent', 1, 2)).toBe(false);
    });

    it('lets one run hold a job until it finishes or its lease lapses', async () => {
      const store = make();
      const tenant = unique('t');
      const job = storedJob(tenant);
      await store.create(job);
      expect(await store.startRun(tenant, job.job_id, run('w1'), 70_000, 61_000)).toBe(true);
      expect(await store.startRun(tenant, job.job_id, run('w2'), 80_000, 65_000)).toBe(false);
      // A finish of another run changes nothing.
      await store.finishRun(tenant, job.job_id, run('w2', { state: 'completed', finished_at: 66_000 }));
      expect((await store.get(tenant, job.job_id))!.last_run!.workflow_id).toBe('w1');
      await store.finishRun(
        tenant,
        job.job_id,
        run('w1', { state: 'failed', finished_at: 66_000, error: 'x' }),
      );
      const finished = (await store.get(tenant, job.job_id))!;
      expect(finished).toMatchObject({ run_count: 1, lease_until: 0 });
      expect(finished.last_run).toMatchObject({ workflow_id: 'w1', state: 'failed', error: 'x' });
      expect(await store.startRun(tenant, job.job_id, run('w3'), 90_000, 67_000)).toBe(true);
      // Its holder died: the lease lapses.
      expect(await store.startRun(tenant, job.job_id, run('w4'), 99_000, 90_001)).toBe(true);
      expect(await store.startRun(tenant, 'absent', run('w5'), 1, 0)).toBe(false);
    });
  });
}
