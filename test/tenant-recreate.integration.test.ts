/**
 * A tenant deleted and created again, in one process and across two processes on one data directory: its
 * tables are new tables under the old names, and nothing kept in memory of the old ones may be read.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const started: RuntimeProcess[] = [];
const start = async (options: Parameters<typeof spawnRuntime>[0] = {}) => {
  const runtime = await spawnRuntime(options);
  started.push(runtime);
  return runtime;
};

afterEach(async () => {
  for (const runtime of started.splice(0).reverse()) await runtime.stop();
});

const STRATEGIES = ['bm25_only', 'float_float', 'binary_binary', 'hybrid_bm25_float'];

/** The sources every strategy finds for the query, per strategy. */
async function found(base: string, query: string): Promise<Record<string, string[]>> {
  const answers: Record<string, string[]> = {};
  for (const strategy of STRATEGIES) {
    const { status, body } = await call(base, 'POST', '/search/', {
      query,
      tenant_id: 'acme',
      profile: 'document_text_semantic',
      strategy,
      top_k: 10,
    });
    expect(status, `${strategy}: ${JSON.stringify(body)}`).toBe(200);
    answers[strategy] = body.results.map((r: { text?: string; fields?: { text?: string } }) =>
      String(r.fields?.text ?? r.text ?? ''),
    );
  }
  return answers;
}

/**
 * One round: create the tenant through `admin`, upload a file through `front`, wait for its job, and check
 * that every reader finds the round's text (and only it) by every strategy and in the graph.
 */
async function round(n: number, admin: string, front: string, readers: string[]): Promise<void> {
  const created = await call(admin, 'POST', '/admin/tenants', {
    tenant_id: 'acme',
    base_schemas: ['document_text'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const text = `Round ${n} okapi notes by Marie Curie in Paris.`;
  const { body } = await upload(front, { tenant_id: 'acme' }, [{ name: 'notes.md', content: text }]);
  const job = await jobEnded(front, body.job_id, 30_000);
  expect(job, JSON.stringify(job)).toMatchObject({ state: 'complete', result: { documents_fed: 1 } });
  for (const reader of readers) {
    const answers = await found(reader, 'okapi notes');
    for (const strategy of STRATEGIES) expect(answers[strategy], `${reader} ${strategy}`).toEqual([text]);
    const stats = await call(reader, 'GET', '/graph/stats?tenant_id=acme');
    expect(stats.status).toBe(200);
    expect(stats.body.node_count).toBeGreaterThan(0);
  }
}

describe('a tenant deleted and created again (integration)', () => {
  it('indexes and searches each new incarnation in one process', async () => {
    const runtime = await start();
    for (let n = 0; n < 3; n++) {
      await round(n, runtime.url, runtime.url, [runtime.url]);
      expect((await call(runtime.url, 'DELETE', '/admin/tenants/acme')).status).toBe(200);
    }
  }, 180_000);

  it('indexes and searches each new incarnation from two processes on one data directory', async () => {
    const first = await start();
    const second = await start({
      env: { AWS_ENDPOINT_URL: first.emulatorUrl!, TESSERA_SEARCH_URI: path.join(first.dataDir, 'lancedb') },
    });
    for (let n = 0; n < 4; n++) {
      // Creates, uploads and deletes alternate between the processes; both read every round.
      const [one, other] = n % 2 === 0 ? [first.url, second.url] : [second.url, first.url];
      await round(n, one, other, [first.url, second.url]);
      expect((await call(other, 'DELETE', '/admin/tenants/acme')).status).toBe(200);
    }
  }, 240_000);
});
