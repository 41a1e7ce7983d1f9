import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const started: RuntimeProcess[] = [];
const start = async (options: Parameters<typeof spawnRuntime>[0]) => {
  const runtime = await spawnRuntime(options);
  started.push(runtime);
  return runtime;
};

afterEach(async () => {
  for (const runtime of started.splice(0).reverse()) await runtime.stop();
});

const search = async (base: string, query: string) =>
  call(base, 'POST', '/search/', { query, tenant_id: 'acme', profile: 'document_text_semantic', top_k: 5 });

describe('ingestion jobs across processes and failures (integration)', () => {
  it('settles a job cancelled while queued without running it, and another process works the rest', async () => {
    // The first runtime takes uploads but consumes no queue; the second shares its emulators and search data.
    const front = await start({ env: { TESSERA_QUEUE_WORKERS: 'off' } });
    expect((await call(front.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
    const cancelled = await upload(front.url, { tenant_id: 'acme' }, [
      { name: 'never.md', content: 'Unseen okapi notes.' },
    ]);
    const kept = await upload(front.url, { tenant_id: 'acme' }, [
      { name: 'kept.md', content: 'Seen pangolin notes.' },
    ]);
    expect([cancelled.status, kept.status]).toEqual([202, 202]);

    const listed = await call(front.url, 'GET', '/events/queues?tenant_id=acme');
    expect(listed.body.queues.map((q: { task_id: string }) => q.task_id)).toEqual(
      expect.arrayContaining([cancelled.body.job_id, kept.body.job_id]),
    );
    const cancel = await call(front.url, 'POST', `/events/ingestion/${cancelled.body.job_id}/cancel`, {
      reason: 'wrong file',
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body.message).toBe(`Ingestion job ${cancelled.body.job_id} cancellation requested`);
    expect((await call(front.url, 'GET', `/ingestion/${cancelled.body.job_id}/events`)).body.state).toBe(
      'queued',
    );

    const worker = await start({
      env: { AWS_ENDPOINT_URL: front.emulatorUrl!, TESSERA_SEARCH_URI: path.join(front.dataDir, 'lancedb') },
    });
    expect(worker.url).not.toBe(front.url);
    const settled = await jobEnded(front.url, cancelled.body.job_id);
    expect(settled).toMatchObject({ state: 'cancelled', reason: 'wrong file', deliveries: 0 });
    expect(settled.entries.at(-1)).toMatchObject({ state: 'cancelled', reason: 'wrong file' });
    const done = await jobEnded(front.url, kept.body.job_id);
    expect(done).toMatchObject({ state: 'complete', result: { documents_fed: 1 } });

    const hits = (await search(front.url, 'okapi pangolin notes')).body.results;
    expect(hits.map((r: { source_doc_id: string }) => r.source_doc_id)).toEqual(['kept.md']);
    const late = await call(front.url, 'POST', `/events/ingestion/${kept.body.job_id}/cancel`, {});
    expect(late.status).toBe(409);
  });

  it('moves a poison file to the dead-letter queue after 5 deliveries without holding up other jobs', async () => {
    const runtime = await start({
      env: { TESSERA_FAILPOINTS: 'ingestion.file:poison.md', TESSERA_QUEUE_VISIBILITY_SECONDS: '1' },
    });
    expect((await call(runtime.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
    const poison = await upload(runtime.url, { tenant_id: 'acme' }, [{ name: 'poison.md', content: 'Bad.' }]);
    const healthy = await Promise.all(
      ['one', 'two', 'three'].map((name) =>
        upload(runtime.url, { tenant_id: 'acme' }, [
          { name: `${name}.md`, content: `Healthy file ${name}.` },
        ]),
      ),
    );
    for (const answer of healthy) {
      expect((await jobEnded(runtime.url, answer.body.job_id, 20_000)).state).toBe('complete');
    }
    const dead = await jobEnded(runtime.url, poison.body.job_id, 60_000);
    expect(dead).toMatchObject({ state: 'failed', error_type: 'IngestPipelineError', deliveries: 5 });
    expect(dead.error).toMatch(/delivered 5 times.*dead-letter queue/);
    expect(dead.entries.at(-1)).toMatchObject({ state: 'failed', error_type: 'IngestPipelineError' });
  });

  it('gives up an attempt that stalls before its function times out, so the job does not hang', async () => {
    const runtime = await start({
      env: {
        TESSERA_FAILPOINTS: 'stall:ingestion.file:stuck.md',
        TESSERA_QUEUE_TIMEOUT_SECONDS: '3',
        TESSERA_QUEUE_VISIBILITY_SECONDS: '1',
      },
    });
    expect((await call(runtime.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
    const stuck = await upload(runtime.url, { tenant_id: 'acme' }, [{ name: 'stuck.md', content: 'Stuck.' }]);
    const healthy = await upload(runtime.url, { tenant_id: 'acme' }, [{ name: 'fine.md', content: 'Fine.' }]);
    expect((await jobEnded(runtime.url, healthy.body.job_id, 20_000)).state).toBe('complete');
    const dead = await jobEnded(runtime.url, stuck.body.job_id, 90_000);
    expect(dead).toMatchObject({ state: 'failed', error_type: 'IngestPipelineError', deliveries: 5 });
  });

  it('finishes a job whose worker was killed mid-job once the runtime is back, without duplicates', async () => {
    const first = await start({ env: { TESSERA_FAILPOINTS: 'ingestion.after_feed' } });
    expect((await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
    const content = 'The crash test mentions capybaras.\n\nAnd a second paragraph about tapirs.';
    const { body } = await upload(first.url, { tenant_id: 'acme' }, [{ name: 'crash.md', content }]);
    // The worker feeds the content, then the process dies as a power cut would.
    expect(await new Promise((resolve) => first.child.once('exit', (_, signal) => resolve(signal)))).toBe(
      'SIGKILL',
    );

    const second = await start({ dataDir: first.dataDir });
    const job = await jobEnded(second.url, body.job_id, 90_000);
    expect(job).toMatchObject({ state: 'complete', result: { documents_fed: 1 } });
    expect(job.deliveries).toBe(2);
    const hits = (await search(second.url, 'capybaras tapirs')).body.results;
    expect(hits.filter((r: { source_doc_id: string }) => r.source_doc_id === 'crash.md')).toHaveLength(1);
  });
});
