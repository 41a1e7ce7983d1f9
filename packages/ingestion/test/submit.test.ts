/** Submitting jobs over fakes: posted files, presigned uploads, runs over the bucket, and recovery. */
import { HttpError } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { presignUpload, recoverIdleJobs, startRun, submitUpload } from '../src';
import { capitalized, drain, file, useIngestion } from './support';

const h = useIngestion({ entities: capitalized });

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('submitUpload', () => {
  it('stores the files as one object and registers a queued job with its task and one message', async () => {
    const { blobs, queue, jobs, events } = h().ingestion;
    const sent = queue.sent.length;
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'acme',
      files: [file('a.md', 'first'), file('dir/b.md', 'second')],
    });
    expect(submitted).toMatchObject({
      status: 'queued',
      tenant_id: 'acme:acme',
      files: [
        { name: 'a.md', profile: 'document_text_semantic', size: 5 },
        { name: 'dir/b.md', profile: 'document_text_semantic', size: 6 },
      ],
      events_url: `/events/ingestion/${submitted.job_id}`,
    });
    const job = (await jobs.get(submitted.job_id))!;
    expect(new Set(job.files.map((f) => f.key)).size).toBe(1);
    expect(new TextDecoder().decode(await blobs.get(job.files[0]!.key))).toBe('firstsecond');
    expect(job.files[1]).toMatchObject({ offset: 5, size: 6 });
    expect((await events.read(submitted.job_id, 0)).map((e) => e.type === 'status' && e.state)).toEqual([
      'pending',
    ]);
    expect(queue.sent.slice(sent)).toEqual([{ message: { job_id: submitted.job_id }, delaySeconds: 0 }]);
  });

  it('refuses an unregistered tenant, a file given twice and an empty file, storing nothing', async () => {
    const { blobs } = h().ingestion;
    const stored = blobs.blobs.size;
    expect(
      await refusal(submitUpload(h().ingestion, { tenant_id: 'ghost', files: [file('a.md', 'x')] })),
    ).toEqual({
      status: 404,
      message: "Tenant 'ghost:ghost' not registered.",
    });
    const twice = await refusal(
      submitUpload(h().ingestion, { tenant_id: 'acme', files: [file('a.md', 'x'), file('./a.md', 'y')] }),
    );
    expect(twice).toMatchObject({ status: 400, message: "File 'a.md' is given twice in one upload" });
    expect(
      (await refusal(submitUpload(h().ingestion, { tenant_id: 'acme', files: [file('e.md', '')] }))).status,
    ).toBe(400);
    expect(blobs.blobs.size).toBe(stored);
  });
});

describe('presignUpload', () => {
  it('registers the job without a message; it runs once the signed PUT landed', async () => {
    const { blobs, queue, jobs } = h().ingestion;
    queue.receive();
    const sent = queue.sent.length;
    const answer = await presignUpload(h().ingestion, { tenant_id: 'acme', filename: 'big.md', size: 11 });
    expect(answer.upload).toMatchObject({ method: 'PUT', headers: { 'content-length': '11' } });
    expect(queue.sent.length).toBe(sent);
    // Nothing arrived yet: recovery leaves the job alone.
    h().clock.offset = 60_000;
    try {
      expect(await recoverIdleJobs(h().ingestion, 30_000)).not.toContain(answer.job_id);
      expect(await blobs.putPresigned(answer.upload.url, new TextEncoder().encode('hello world'))).toBe(true);
      // The bucket's notification is what queues it in AWS; here recovery finds the object and queues it.
      expect(await recoverIdleJobs(h().ingestion, 30_000)).toContain(answer.job_id);
      await drain(h());
    } finally {
      h().clock.offset = 0;
    }
    expect(await jobs.get(answer.job_id)).toMatchObject({ state: 'complete', origin: 'presigned' });
  });
});

describe('startRun', () => {
  it('runs over the objects under the tenant prefix, and names the place when there are none', async () => {
    const { blobs, jobs } = h().ingestion;
    await blobs.put('tenants/rival:rival/manuals/one.md', new TextEncoder().encode('Manual one'));
    await blobs.put('tenants/rival:rival/manuals/two.txt', new TextEncoder().encode('Manual two'));
    await blobs.put('tenants/acme:acme/manuals/theirs.md', new TextEncoder().encode('Not rival'));
    const submitted = await startRun(h().ingestion, { tenant_id: 'rival', prefix: 'manuals/' });
    expect(submitted.files.map((f) => f.name)).toEqual(['manuals/one.md', 'manuals/two.txt']);
    await drain(h());
    expect((await jobs.get(submitted.job_id))!.result).toMatchObject({
      status: 'complete',
      documents_fed: 2,
    });
    expect(await refusal(startRun(h().ingestion, { tenant_id: 'rival', prefix: 'nothing/' }))).toEqual({
      status: 400,
      message: `No objects to ingest under ${blobs.describe('tenants/rival:rival/nothing')}`,
    });
  });
});
