/**
 * Wiki and scheduler figures (issue 18). Wiki search: BM25 over titles and contents of generated pages in one
 * tenant's wiki table, at 1,000 and 10,000 pages: the store's search (LanceWikiStore) and the whole request
 * through the local runtime (`POST /wiki/search`, tenant guard included), p50/p95/p99 over 500 queries each.
 * Target: p95 ≤ 50 ms at 10,000 pages. Scheduler: jobs of `* * * * *` fired by the runtime's ticker; the
 * delay from each run's slot to its start (`started_at - scheduled_for`). Target: ≤ 2 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LanceSearchBackend, lanceConnection, SchemaCatalog } from '@tessera/search';
import { LanceWikiStore, ProcessPageLocks, type StoredPage } from '@tessera/wiki';
import { startRuntime } from './admin.bench';

const root = path.resolve(import.meta.dirname, '..');
const SIZES = (process.env.BENCH_WIKI_PAGES ?? '1000,10000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_WIKI_QUERIES ?? 500);
const JOBS = Number(process.env.BENCH_SCHEDULER_JOBS ?? 20);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function row(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cell = (value: number) => value.toFixed(2).padStart(8);
  return `${name.padEnd(44)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 95))} ${cell(percentile(sorted, 99))} ${cell(sorted.at(-1)!)}`;
}

/** A vocabulary of 5,000 made-up words, drawn with a Zipf-like skew as prose is. */
function words(): { word: (r: number) => string } {
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ren',
    'to',
    'sa',
    'vi',
    'del',
    'qu',
    'an',
    'or',
    'is',
    'ex',
    'um',
    'ba',
  ];
  const vocabulary = Array.from({ length: 5000 }, (_, i) => {
    let text = '';
    let n = i + 7;
    for (let k = 0; k < 3; k++) {
      text += syllables[n % syllables.length];
      n = Math.floor(n / syllables.length) + k * 3;
    }
    return `${text}${i % 97}`;
  });
  return { word: (r) => vocabulary[Math.floor(vocabulary.length * r ** 3)]! };
}

function generatedPages(count: number): StoredPage[] {
  let seed = 11;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const { word } = words();
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const title = Array.from({ length: 4 }, () => word(random())).join(' ');
    const body = Array.from({ length: 200 }, () => word(random())).join(' ');
    const slug = i % 4 === 0 ? `topic_${i}` : `session_20260101000000_${i.toString(16).padStart(8, '0')}`;
    return {
      slug,
      title,
      kind: i % 4 === 0 ? 'topic' : 'session',
      content: `# ${title}\n\n${body}\n`,
      entities: [],
      agent_name: 'search_agent',
      query: title,
      sources: [],
      cross_refs: [],
      created_at: now,
      updated_at: now,
      version: 1,
    } satisfies StoredPage;
  });
}

function benchQueries(): string[] {
  let seed = 5;
  const random = () => {
    seed = (Math.imul(seed, 22695477) + 1) >>> 0;
    return seed / 2 ** 32;
  };
  const { word } = words();
  return Array.from({ length: QUERIES }, (_, i) =>
    Array.from({ length: 1 + (i % 3) }, () => word(random())).join(' '),
  );
}

async function searchFigures(): Promise<void> {
  const template = new SchemaCatalog(path.join(root, 'configs/schemas')).get('wiki')!;
  const queries = benchQueries();
  console.log(`\nwiki search (BM25, ${QUERIES} queries of 1-3 words, top 5; ms)`);
  console.log(
    `${''.padEnd(44)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)}`,
  );
  for (const size of SIZES) {
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-wiki-bench-'));
    try {
      const schema = 'wiki_bench_bench';
      await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
      const store = new LanceWikiStore(lanceConnection(dir), template, new ProcessPageLocks());
      const pages = generatedPages(size);
      let started = performance.now();
      await store.load(schema, pages);
      const loadMs = performance.now() - started;
      started = performance.now();
      await store.search(schema, 'warm', 5);
      const indexMs = performance.now() - started;
      const times: number[] = [];
      let hits = 0;
      for (const query of queries) {
        const t = performance.now();
        hits += (await store.search(schema, query, 5)).length;
        times.push(performance.now() - t);
      }
      console.log(row(`store search, ${size.toLocaleString('en')} pages`, times));
      console.log(
        `  (bulk load ${Math.round(loadMs)} ms; first search builds the index: ${Math.round(indexMs)} ms; ${(hits / queries.length).toFixed(1)} hits a query)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // The whole request through the runtime, at the largest size: pages loaded into the tenant's wiki table.
  const size = Math.max(...SIZES);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-wiki-bench-rt-'));
  const runtime = await startRuntime(dataDir);
  try {
    const post = (route: string, body: unknown) =>
      fetch(`${runtime.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    if ((await post('/admin/tenants', { tenant_id: 'bench' })).status !== 201)
      throw new Error('tenant create failed');
    const saved = await post('/wiki/save', {
      tenant_id: 'bench',
      query: 'first',
      response: { answer: 'deploys the wiki' },
    });
    if (saved.status !== 200) throw new Error(`save failed: ${await saved.text()}`);
    const store = new LanceWikiStore(
      lanceConnection(path.join(dataDir, 'lancedb')),
      new SchemaCatalog(path.join(root, 'configs/schemas')).get('wiki')!,
      new ProcessPageLocks(),
    );
    await store.load('wiki_bench_bench', generatedPages(size));
    await (await post('/wiki/search', { tenant_id: 'bench', query: 'warm' })).arrayBuffer();
    const times: number[] = [];
    for (const query of queries) {
      const t = performance.now();
      const response = await post('/wiki/search', { tenant_id: 'bench', query, top_k: 5 });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`search answered ${response.status}`);
      times.push(performance.now() - t);
    }
    console.log(row(`POST /wiki/search, ${size.toLocaleString('en')} pages`, times));
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function schedulerFigures(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-scheduler-bench-'));
  const runtime = await startRuntime(dataDir, { TESSERA_SCHEDULER: 'on' });
  try {
    const call = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${runtime.url}${route}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
      // biome-ignore lint/suspicious/noExplicitAny: answers whose fields the bench reads one by one
      return (await response.json()) as Record<string, any>;
    };
    await call('POST', '/admin/tenants', { tenant_id: 'bench' });
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const job = await call('POST', '/admin/tenant/bench/jobs', {
        name: `job ${i}`,
        schedule: '* * * * *',
        query: 'status of the vault',
        agent_name: 'text_analysis_agent',
      });
      ids.push(job.job_id);
    }
    const slot = Date.parse((await call('GET', `/admin/tenant/bench/jobs/${ids[0]}`)).next_run);
    console.log(
      `\nscheduler: ${JOBS} jobs of '* * * * *' (the next slot is ${Math.round((slot - Date.now()) / 1000)} s away)`,
    );
    const delays: number[] = [];
    const deadline = slot + 60_000;
    while (delays.length < ids.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      delays.length = 0;
      for (const id of ids) {
        const run = (await call('GET', `/admin/tenant/bench/jobs/${id}`)).last_run as {
          started_at: string;
          scheduled_for: string;
        } | null;
        if (run) delays.push(Date.parse(run.started_at) - Date.parse(run.scheduled_for));
      }
    }
    console.log(
      `${''.padEnd(44)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)}`,
    );
    console.log(row(`firing delay, slot to run start (${delays.length} runs)`, delays));
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function wikiBench(): Promise<void> {
  await searchFigures();
  await schedulerFigures();
}
