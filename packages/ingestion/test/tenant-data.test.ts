/** A tenant delete over fakes: what ingestion and the task events hold of the tenant goes, crash-safely. */
import { PRODUCER_LEASE_MS, TaskReporter } from '@tessera/events';
import { createTenant, deleteTenant, getTenant } from '@tessera/tenancy';
import { describe, expect, it } from 'vitest';
import {
  jobStatus,
  presignUpload,
  processRecords,
  runJob,
  startRun,
  submitUpload,
  tenantBlobPrefixes,
} from '../src';
import { drain, file, ingest, useIngestion } from './support';

const h = useIngestion();

let counter = 0;
/** A new tenant of its own for each test. */
async function freshTenant(): Promise<string> {
  const id = `gone${Date.now().toString(36)}${counter++}`;
  await createTenant(h().tenancy, { tenant_id: id, created_by: 'test' });
  return `${id}:${id}`;
}

/** Every blob of the tenant, under any of its prefixes. */
async function blobsOf(tenantId: string): Promise<string[]> {
  const keys: string[] = [];
  for (const prefix of tenantBlobPrefixes(tenantId))
    keys.push(...(await h().ingestion.blobs.list(prefix)).map((blob) => blob.key));
  return keys;
}

const failure = async (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: { status?: number; detail?: unknown }) => ({ status: error.status, detail: error.detail }),
  );

describe('tenant delete: ingestion and task events', () => {
  it('removes uploads, jobs and source hashes, so a tenant created again starts empty', async () => {
    const tenant = await freshTenant();
    const done = await ingest(h(), tenant, [file('notes.md', 'Ada Lovelace wrote notes.')]);
    expect(done.state).toBe('complete');
    await h().ingestion.blobs.put(`tenants/${tenant}/manual.md`, new TextEncoder().encode('Own object.'));
    expect(await blobsOf(tenant)).toHaveLength(2);

    await deleteTenant(h().tenancy, tenant);
    expect(await blobsOf(tenant)).toEqual([]);
    expect(await h().ingestion.jobs.tenantJobs(tenant)).toEqual([]);
    expect((await failure(jobStatus(h().ingestion, done.job_id))).status).toBe(404);
    expect(
      (await h().ingestion.jobs.sources(tenant, [{ profile: 'document_text_semantic', name: 'notes.md' }]))
        .size,
    ).toBe(0);

    await createTenant(h().tenancy, { tenant_id: tenant, created_by: 'test' });
    // The same file again is indexed, not skipped as the previous owner's was.
    const again = await ingest(h(), tenant, [file('notes.md', 'Ada Lovelace wrote notes.')]);
    expect(again.result).toMatchObject({ status: 'complete', documents_fed: 1, files_skipped: 0 });
    // The previous owner's own objects are gone: a run over the bucket finds nothing.
    expect((await failure(startRun(h().ingestion, { tenant_id: tenant }))).status).toBe(400);
  });

  it('settles a queued presigned job cancelled, ending its task, instead of leaving it under its 6-hour lease', async () => {
    const tenant = await freshTenant();
    const presigned = await presignUpload(h().ingestion, {
      tenant_id: tenant,
      filename: 'big.pdf',
      size: 1000,
    });
    const queued = await submitUpload(h().ingestion, {
      tenant_id: tenant,
      files: [file('later.md', 'Later.')],
    });
    expect((await h().ingestion.events.active(tenant)).map((task) => task.task_id).sort()).toEqual(
      [presigned.job_id, queued.job_id].sort(),
    );

    await deleteTenant(h().tenancy, tenant);
    for (const jobId of [presigned.job_id, queued.job_id]) {
      const events = await h().ingestion.events.read(jobId, 0);
      expect(events.at(-1)).toMatchObject({
        type: 'status',
        state: 'cancelled',
        message: `Tenant ${tenant} was deleted`,
      });
      expect(h().ingestion.events.condition((await h().ingestion.events.get(jobId))!)).toBe('ended');
    }
    expect(await h().ingestion.events.active(tenant)).toEqual([]);
    // Their messages find nothing to run.
    await drain(h());
    expect(await h().ingestion.jobs.get(queued.job_id)).toBeUndefined();
  });

  it('forgets the tenant task events after the retention of ended tasks', async () => {
    const tenant = await freshTenant();
    const done = await ingest(h(), tenant, [file('a.md', 'Grace Hopper.')]);
    await deleteTenant(h().tenancy, tenant);
    expect((await h().ingestion.events.tenantTasks(tenant)).map((task) => task.task_id)).toEqual([
      done.job_id,
    ]);
    h().clock.offset = 31 * 60_000;
    try {
      expect(await h().ingestion.events.tenantTasks(tenant)).toEqual([]);
    } finally {
      h().clock.offset = 0;
    }
  });

  it('waits for a job a worker runs, and answers 503 (the tenant stays marked deleted) while it still runs', async () => {
    const tenant = await freshTenant();
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: tenant,
      files: [file('slow.md', 'Slow.')],
    });
    // A worker of another process holds the job's lease and keeps it alive.
    const worker = await TaskReporter.attach(h().ingestion.events, {
      taskId: submitted.job_id,
      from: submitted.job_id,
      leaseMs: PRODUCER_LEASE_MS,
      pollMs: 50,
    });
    await h().ingestion.jobs.claim(submitted.job_id);
    const refused = await failure(deleteTenant(h().tenancy, tenant));
    expect(refused.status).toBe(503);
    expect(refused.detail).toMatchObject({ error: 'tenant_delete_incomplete' });
    expect(JSON.stringify(refused.detail)).toMatch(`1 ingestion jobs of tenant ${tenant} still running`);
    expect((await getTenant(h().tenancy, tenant)).status).toBe('marked_deleted');
    // The worker saw the cancellation; its one-file job ends, and the repeated delete finishes.
    expect(worker!.cancelled).toBe(true);
    worker!.stop();
    const deleting = deleteTenant(h().tenancy, tenant);
    await h().ingestion.jobs.settle(submitted.job_id, 'cancelled', { reason: worker!.reason });
    await worker!.reportCancelled(worker!.reason!);
    expect((await deleting).status).toBe('deleted');
    expect(await blobsOf(tenant)).toEqual([]);
  });

  it('settles a running job whose worker died (its lease lapsed) without waiting for it', async () => {
    const tenant = await freshTenant();
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: tenant,
      files: [file('dead.md', 'Dead.')],
    });
    const worker = await TaskReporter.attach(h().ingestion.events, {
      taskId: submitted.job_id,
      from: submitted.job_id,
      leaseMs: 1_000,
    });
    await h().ingestion.jobs.claim(submitted.job_id);
    worker!.stop();
    h().clock.offset = 2_000;
    try {
      expect((await deleteTenant(h().tenancy, tenant)).status).toBe('deleted');
    } finally {
      h().clock.offset = 0;
    }
    expect((await h().ingestion.events.read(submitted.job_id, 0)).at(-1)).toMatchObject({
      state: 'cancelled',
    });
  });

  it('finishes on a repeated delete after a store failed part-way', async () => {
    const tenant = await freshTenant();
    await ingest(h(), tenant, [file('a.md', 'Alan Turing.'), file('b.md', 'Alonzo Church.')]);
    const blobs = h().ingestion.blobs;
    const remove = blobs.delete.bind(blobs);
    blobs.delete = async () => {
      throw new Error('storage timeout');
    };
    try {
      const first = await failure(deleteTenant(h().tenancy, tenant));
      expect(first.status).toBe(503);
      expect(JSON.stringify(first.detail)).toMatch(/ingestion jobs, sources and uploads: storage timeout/);
    } finally {
      blobs.delete = remove;
    }
    expect((await getTenant(h().tenancy, tenant)).status).toBe('marked_deleted');
    expect((await deleteTenant(h().tenancy, tenant)).status).toBe('deleted');
    expect(await blobsOf(tenant)).toEqual([]);
    expect(await h().ingestion.jobs.tenantJobs(tenant)).toEqual([]);
  });

  it('refuses to run a job submitted for a tenant that was deleted and created again since', async () => {
    const tenant = await freshTenant();
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: tenant,
      files: [file('old.md', 'Old owner.')],
    });
    // The job as a submit racing the delete stored it after the purge (under an id of its own).
    const job = {
      ...(await h().ingestion.jobs.get(submitted.job_id))!,
      job_id: `${submitted.job_id.slice(0, -4)}beef`,
    };
    await deleteTenant(h().tenancy, tenant);
    await createTenant(h().tenancy, { tenant_id: tenant, created_by: 'test' });
    await h().ingestion.jobs.create(job);
    await h().ingestion.events.open({
      task_id: job.job_id,
      kind: 'ingestion',
      tenant_id: tenant,
      owner: job.job_id,
      leaseMs: 60_000,
    });
    await h().ingestion.blobs.put(job.files[0]!.key, new TextEncoder().encode('Old owner.'));
    await runJob(h().ingestion, job.job_id);
    const ended = (await h().ingestion.jobs.get(job.job_id))!;
    expect(ended.state).toBe('failed');
    expect(ended.error).toMatch(`Tenant '${tenant}' was deleted after job ${job.job_id} was submitted`);
    expect(await h().content.index.count(`document_text_${tenant.replace(':', '_')}`)).toBe(0);
  });

  it('removes a presigned upload that arrives after its tenant was deleted', async () => {
    const tenant = await freshTenant();
    const presigned = await presignUpload(h().ingestion, { tenant_id: tenant, filename: 'late.md', size: 5 });
    await deleteTenant(h().tenancy, tenant);
    // The holder of the URL uploads anyway, and the bucket notifies the queue.
    const blobs = h().ingestion.blobs;
    expect(await blobs.putPresigned(presigned.upload.url, new TextEncoder().encode('Late.'))).toBe(true);
    expect(await blobsOf(tenant)).toHaveLength(1);
    const key = (await blobsOf(tenant))[0]!;
    const notification = JSON.stringify({
      Records: [{ eventName: 'ObjectCreated:Put', s3: { object: { key: encodeURIComponent(key) } } }],
    });
    const answer = await processRecords(h().ingestion, [{ messageId: 'm1', body: notification } as never]);
    expect(answer.batchItemFailures).toEqual([]);
    expect(await blobsOf(tenant)).toEqual([]);
  });
});
