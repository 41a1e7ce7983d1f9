/** A job's run over fakes: claiming, feeding, the graph pass, skips, slots, leases and cancellation. */
import { PRODUCER_LEASE_MS } from '@tessera/events';
import { createTenant } from '@tessera/tenancy';
import { describe, expect, it, vi } from 'vitest';
import { cancelJob, jobStatus, runJob, submitUpload } from '../src';
import { CURIE, drain, file, ingest, useIngestion } from './support';

const h = useIngestion();

describe('runJob', () => {
  it('indexes a Markdown file, stores its graph and reports the job on its task', async () => {
    const job = await ingest(h(), 'acme', [file('curie.md', CURIE)]);
    expect(job.state).toBe('complete');
    expect(job.result).toMatchObject({
      status: 'complete',
      video_id: 'curie.md',
      chunks_created: 1,
      documents_fed: 1,
      files_skipped: 0,
      job_id: job.job_id,
    });
    expect(job.result!.graph_nodes).toBeGreaterThan(0);
    expect(job.result!.claims).toMatch(/claims skipped.*entities by embedded:compromise/);
    const [chunk] = await h().content.index.fetch('document_text_acme_acme', ['curie.md:0'], ['entity_ids']);
    expect(chunk!.entity_ids).toContain('marie_curie');
    const events = await h().ingestion.events.read(job.job_id, 0);
    expect(events.map((e) => e.type)).toEqual(['status', 'status', 'progress', 'complete']);
    expect(h().ingestion.events.condition((await h().ingestion.events.get(job.job_id))!)).toBe('ended');
    // The job's status names it job_id; its entries carry document 3's ingest_id.
    const status = await jobStatus(h().ingestion, job.job_id);
    expect(status).toMatchObject({ job_id: job.job_id, state: 'complete', deliveries: 1 });
    expect(status.entries.map((entry) => [entry.state, entry.ingest_id])).toEqual([
      ['queued', job.job_id],
      ['running', job.job_id],
      ['running', job.job_id],
      ['complete', job.job_id],
    ]);
  });

  it('skips a re-upload of identical content and indexes changed content again', async () => {
    const first = await ingest(h(), 'acme', [file('same.md', 'Ada Lovelace wrote notes.')]);
    const again = await ingest(h(), 'acme', [file('same.md', 'Ada Lovelace wrote notes.')]);
    expect(first.result!.files[0]!.status).toBe('indexed');
    expect(again.result).toMatchObject({ status: 'complete', files_skipped: 1, documents_fed: 0 });
    const changed = await ingest(h(), 'acme', [file('same.md', 'Ada Lovelace wrote many notes.')]);
    expect(changed.result!.files[0]!.status).toBe('indexed');
    expect(await h().content.index.count('document_text_acme_acme', { sourceDocId: 'same.md' })).toBe(1);
  });

  it('settles a job cancelled while queued without running it', async () => {
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'acme',
      files: [file('never.md', 'text')],
    });
    await cancelJob(h().ingestion, submitted.job_id, 'changed my mind');
    await drain(h());
    expect(await h().ingestion.jobs.get(submitted.job_id)).toMatchObject({
      state: 'cancelled',
      reason: 'changed my mind',
      deliveries: 0,
    });
    expect(await h().content.index.count('document_text_acme_acme', { sourceDocId: 'never.md' })).toBe(0);
  });

  it('puts a job back on the queue while its tenant slots are busy, burning no delivery', async () => {
    const { jobs, queue } = h().ingestion;
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'rival',
      files: [file('wait.md', 'text')],
    });
    queue.receive();
    await jobs.acquireSlot('rival:rival', 'other-1', 2, 60_000);
    await jobs.acquireSlot('rival:rival', 'other-2', 2, 60_000);
    await runJob(h().ingestion, submitted.job_id);
    expect(await jobs.get(submitted.job_id)).toMatchObject({ state: 'queued', deliveries: 0 });
    expect(queue.sent.at(-1)).toEqual({ message: { job_id: submitted.job_id }, delaySeconds: 2 });
    await jobs.releaseSlot('rival:rival', 'other-1');
    h().clock.offset = 2_000;
    try {
      await drain(h());
    } finally {
      h().clock.offset = 0;
    }
    expect(await jobs.state(submitted.job_id)).toBe('complete');
  });

  it('waits out another worker lease on the job, then runs it', async () => {
    const { events, queue, jobs } = h().ingestion;
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'rival',
      files: [file('leased.md', 'x')],
    });
    queue.receive();
    expect(await events.takeOver(submitted.job_id, submitted.job_id, 'another worker', 5_000)).toBeDefined();
    await runJob(h().ingestion, submitted.job_id);
    expect(await jobs.state(submitted.job_id)).toBe('queued');
    expect(queue.sent.at(-1)).toEqual({ message: { job_id: submitted.job_id }, delaySeconds: 6 });
    h().clock.offset = 6_000;
    try {
      await drain(h());
    } finally {
      h().clock.offset = 0;
    }
    expect(await jobs.state(submitted.job_id)).toBe('complete');
  });

  it('hands a job back, its task open, when its attempt runs out of time', async () => {
    const { events, jobs } = h().ingestion;
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'rival',
      files: [file('slow.md', 'x')],
    });
    h().ingestion.queue.receive();
    const slow = vi.spyOn(h().ingestion.entities, 'extract').mockImplementation(() => new Promise(() => {}));
    try {
      await expect(runJob(h().ingestion, submitted.job_id, 50)).rejects.toThrow(/did not finish within/);
    } finally {
      slow.mockRestore();
    }
    expect(await jobs.get(submitted.job_id)).toMatchObject({ state: 'running', deliveries: 1 });
    // The lease went back to the job, so the redelivery takes it over at once.
    expect((await events.get(submitted.job_id))!.lease_owner).toBe(submitted.job_id);
    await runJob(h().ingestion, submitted.job_id);
    expect(await jobs.get(submitted.job_id)).toMatchObject({ state: 'complete', deliveries: 2 });
  });

  it('leases a running job its tenant slot for one producer lease, renewed while it runs, so a dead worker frees it', async () => {
    const { jobs, queue } = h().ingestion;
    const tenant = 'slots';
    await createTenant(h().tenancy, { tenant_id: tenant, created_by: 'test' });
    const taken = vi.spyOn(jobs, 'acquireSlot');
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    // Two jobs whose workers then die: they stall, and their heartbeats are never run again.
    const stall = vi.spyOn(h().ingestion.entities, 'extract').mockImplementation(() => new Promise(() => {}));
    try {
      const dying = [];
      for (const name of ['a.md', 'b.md']) {
        const submitted = await submitUpload(h().ingestion, {
          tenant_id: tenant,
          files: [file(name, `Ada Lovelace ${name}`)],
        });
        void runJob(h().ingestion, submitted.job_id);
        dying.push(submitted.job_id);
      }
      for (let i = 0; i < 200 && (await jobs.state(dying[1]!)) !== 'running'; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const holders = taken.mock.calls.map((call) => call[1]);
      expect(taken.mock.calls.map((call) => call[3])).toEqual([PRODUCER_LEASE_MS, PRODUCER_LEASE_MS]);
      // While a worker lives, its heartbeat asks for the slot it holds again, which renews it.
      vi.advanceTimersByTime(PRODUCER_LEASE_MS / 3);
      await vi.waitFor(() => expect(taken.mock.calls.length).toBe(4));
      expect(
        taken.mock.calls
          .slice(2)
          .map((call) => call[1])
          .sort(),
      ).toEqual([...holders].sort());
      stall.mockRestore();

      queue.receive();
      const waiting = await submitUpload(h().ingestion, {
        tenant_id: tenant,
        files: [file('c.md', 'Grace.')],
      });
      await runJob(h().ingestion, waiting.job_id);
      expect(await jobs.state(waiting.job_id)).toBe('queued');
      // One producer lease after their last renewal, the dead workers' slots are free.
      h().clock.offset = PRODUCER_LEASE_MS + 1_000;
      await runJob(h().ingestion, waiting.job_id);
      expect(await jobs.state(waiting.job_id)).toBe('complete');
    } finally {
      stall.mockRestore();
      vi.useRealTimers();
      h().clock.offset = 0;
      taken.mockRestore();
    }
  });

  it('ends a job cancelled while its worker was gone when it is delivered again, without running it', async () => {
    const { events, jobs } = h().ingestion;
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'rival',
      files: [file('gone.md', 'x')],
    });
    h().ingestion.queue.receive();
    // A worker took the job up, then died: its lease lapses, and the task is interrupted, not stopped.
    await events.takeOver(submitted.job_id, submitted.job_id, 'dead worker', 1_000);
    await jobs.claim(submitted.job_id);
    h().clock.offset = 2_000;
    try {
      expect(events.condition((await events.get(submitted.job_id))!)).toBe('interrupted');
      expect((await cancelJob(h().ingestion, submitted.job_id, 'no longer needed')).cancelled).toBe(true);
      await runJob(h().ingestion, submitted.job_id);
    } finally {
      h().clock.offset = 0;
    }
    expect(await jobs.get(submitted.job_id)).toMatchObject({
      state: 'cancelled',
      reason: 'no longer needed',
      deliveries: 1,
    });
    expect(await h().content.index.count('document_text_rival_rival', { sourceDocId: 'gone.md' })).toBe(0);
  });

  it('runs a job whose submit died before opening its task, opening the task itself', async () => {
    const { events, jobs } = h().ingestion;
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'rival',
      files: [file('half.md', 'Half.')],
    });
    const job = (await jobs.get(submitted.job_id))!;
    const orphan = { ...job, job_id: `${job.job_id.slice(0, -4)}f00d` };
    await jobs.create(orphan);
    await runJob(h().ingestion, orphan.job_id);
    expect(await jobs.state(orphan.job_id)).toBe('complete');
    expect(events.condition((await events.get(orphan.job_id))!)).toBe('ended');
  });
});
