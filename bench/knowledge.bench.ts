/**
 * Knowledge route figures: p50/p95/p99 of the whole request through the local runtime (tenant guard, agent
 * bind, graph method, JSON) for traverse (depth 2), temporal compare, contradiction detect and citation
 * trace, on generated claim graphs of `BENCH_KNOWLEDGE_NODES` nodes (default 10,000; e.g. `10000,100000`)
 * with `BENCH_KNOWLEDGE_EDGES_PER_NODE` edges a node (default 10). Target: p95 ≤ 100 ms at 100,000 nodes and
 * 1,000,000 edges. The graph is written into the tenant's table by this process (as an ingestion worker
 * would), so the runtime reads it once on its first request, which is reported apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMultiVectorEncoder } from '@tessera/encoders';
import { edgeId, LanceGraphStore, UpsertRequest } from '@tessera/graph';
import { lanceConnection, lanceMaintenance, SchemaCatalog } from '@tessera/search';
import { startRuntime } from './admin.bench';

const root = path.resolve(import.meta.dirname, '..');
const SIZES = (process.env.BENCH_KNOWLEDGE_NODES ?? '10000').split(',').map(Number);
const EDGES_PER_NODE = Number(process.env.BENCH_KNOWLEDGE_EDGES_PER_NODE ?? 10);
const QUERIES = Number(process.env.BENCH_KNOWLEDGE_QUERIES ?? 300);
const BATCH = 10_000;
const PREDICATES = [
  'born_in',
  'discovered',
  'located_at',
  'won',
  'worked_at',
  'wrote',
  'invented',
  'studied',
  'contains',
  'occurred_at',
  'part_of',
  'contradicts',
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function row(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cell = (value: number) => value.toFixed(2).padStart(8);
  return `${name.padEnd(40)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 95))} ${cell(percentile(sorted, 99))} ${cell(sorted.at(-1)!)}`;
}

/** Writes a claim graph of `nodes` nodes into the schema; answers a sample of its claim ids. */
async function writeGraph(store: LanceGraphStore, schema: string, nodes: number): Promise<string[]> {
  let seed = 13;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const name = (i: number) => `entity_${i}`;
  for (let from = 0; from < nodes; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, nodes - from) }, (_, k) => ({
      name: name(from + k),
      description: `Subject ${from + k} of the corpus`,
      label: 'Person',
    }));
    await store.upsert(schema, [UpsertRequest.parse({ tenant_id: 'bench', nodes: batch })]);
  }
  const edges = nodes * EDGES_PER_NODE;
  const claims: string[] = [];
  for (let from = 0; from < edges; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, edges - from) }, (_, k) => {
      const n = from + k;
      const source = Math.floor(random() * nodes);
      // Mostly near subjects, some far: hubs and long chains.
      const target =
        random() < 0.8 ? (source + 1 + Math.floor(random() * 50)) % nodes : Math.floor(random() ** 3 * nodes);
      const relation = PREDICATES[Math.floor(random() * PREDICATES.length)]!;
      const ts = Math.round(random() * 36_000) / 10;
      const edge = {
        source: name(source),
        target: name(target),
        relation,
        evidence_span: `${name(source)} ${relation} ${name(target)}`,
        segment_id: `segment_${n}`,
        ts_start: ts,
        ts_end: ts + 5,
        modality: 'video',
        provenance: 'INFERRED',
        source_doc_id: `doc_${n % 997}`,
      };
      if (n % Math.max(1, Math.floor(edges / 1000)) === 0)
        claims.push(edgeId(name(source), relation, name(target), edge.segment_id, ts, ts + 5));
      return edge;
    });
    await store.upsert(schema, [UpsertRequest.parse({ tenant_id: 'bench', edges: batch })]);
  }
  return claims;
}

async function figuresAt(nodes: number): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-knowledge-bench-'));
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
    // The first upsert deploys the tenant's graph schema; the rest is written straight into its table.
    const first = await post('/graph/upsert', { tenant_id: 'bench', nodes: [{ name: 'entity_0' }] });
    if (first.status !== 200) throw new Error(`upsert failed: ${await first.text()}`);
    const template = new SchemaCatalog(path.join(root, 'configs/schemas')).get('knowledge_graph')!;
    const store = new LanceGraphStore(
      lanceConnection(path.join(dataDir, 'lancedb')),
      template,
      createMultiVectorEncoder(),
    );
    let started = performance.now();
    const claims = await writeGraph(store, 'knowledge_graph_bench_bench', nodes);
    // Compactions the writes made due finish first: each is a new table version the runtime would read again.
    await lanceMaintenance(store.db).idle();
    const writeSeconds = (performance.now() - started) / 1000;

    const route = (suffix: string) => `/admin/tenants/bench/knowledge/${suffix}`;
    started = performance.now();
    const load = await post(route('temporal/compare'), { subject_key: 'entity_1' });
    await load.arrayBuffer();
    const loadMs = performance.now() - started;

    let seed = 29;
    const pick = () => {
      seed = (Math.imul(seed, 22695477) + 1) >>> 0;
      return seed / 2 ** 32;
    };
    const subject = () => `entity_${Math.floor(pick() * nodes)}`;
    const measure = async (suffix: string, body: () => unknown) => {
      const times: number[] = [];
      for (let i = 0; i < QUERIES; i++) {
        const t = performance.now();
        const response = await post(route(suffix), body());
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${suffix} answered ${response.status}`);
        times.push(performance.now() - t);
      }
      return times;
    };
    console.log(
      `\n${nodes.toLocaleString('en')} nodes, ${(nodes * EDGES_PER_NODE).toLocaleString('en')} edges (written in ${writeSeconds.toFixed(0)} s; the runtime's first request, reading the graph: ${(loadMs / 1000).toFixed(1)} s)`,
    );
    console.log(
      `${'route (ms)'.padEnd(40)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)}`,
    );
    const figures: [string, string, () => unknown][] = [
      ['graph/traverse (depth 2)', 'graph/traverse', () => ({ start_subject_key: subject(), depth: 2 })],
      ['temporal/compare', 'temporal/compare', () => ({ subject_key: subject() })],
      ['contradictions/detect', 'contradictions/detect', () => ({ subject_key: subject() })],
      [
        'citations/trace',
        'citations/trace',
        () => ({ claim_id: claims[Math.floor(pick() * claims.length)] }),
      ],
    ];
    for (const [label, suffix, body] of figures) console.log(row(label, await measure(suffix, body)));
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function knowledgeBench(): Promise<void> {
  console.log(
    `\nknowledge routes through the runtime (${QUERIES} requests each, one at a time; target p95 ≤ 100 ms at 100,000 nodes and 1,000,000 edges)`,
  );
  for (const nodes of SIZES) await figuresAt(nodes);
}
