/**
 * Knowledge graph figures on a generated graph of 100,000 nodes and 1,000,000 edges in one tenant: upsert
 * throughput, and latency of neighbors, depth-6 path, stats and node search.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMultiVectorEncoder } from '@tessera/encoders';
import { LanceGraphStore, neighbors, searchNodes, shortestPath, stats, UpsertRequest } from '@tessera/graph';
import {
  LanceDatabase,
  LanceSearchBackend,
  lanceConnection,
  lanceMaintenance,
  SchemaCatalog,
} from '@tessera/search';

const root = path.resolve(import.meta.dirname, '..');
const NODES = Number(process.env.BENCH_NODES ?? 100_000);
const EDGES = Number(process.env.BENCH_EDGES ?? 1_000_000);
const BATCH = 10_000;
const WORDS = [
  'parse',
  'render',
  'tenant',
  'schema',
  'graph',
  'index',
  'query',
  'stream',
  'upload',
  'token',
  'vector',
  'server',
];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

export async function graphBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-graph-bench-'));
  try {
    const template = new SchemaCatalog(path.join(root, 'configs/schemas')).get('knowledge_graph')!;
    const schema = 'knowledge_graph_bench_bench';
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const encoder = createMultiVectorEncoder();
    const store = new LanceGraphStore(lanceConnection(dir), template, encoder);
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const name = (i: number) => `${WORDS[i % WORDS.length]}_${WORDS[(i >> 4) % WORDS.length]}_${i}`;

    // Nodes first, with descriptions, then edges in batches of 10,000.
    let started = performance.now();
    for (let from = 0; from < NODES; from += BATCH) {
      const nodes = Array.from({ length: Math.min(BATCH, NODES - from) }, (_, k) => ({
        name: name(from + k),
        description: `${WORDS[(from + k) % 7]} helper of the ${WORDS[(from + k) % 11]} module`,
        kind: 'entity' as const,
      }));
      await store.upsert(schema, [UpsertRequest.parse({ tenant_id: 'bench', nodes })]);
    }
    const nodeSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    for (let from = 0; from < EDGES; from += BATCH) {
      const edges = Array.from({ length: Math.min(BATCH, EDGES - from) }, (_, k) => {
        const source = Math.floor(random() * NODES);
        // Mostly local calls, some far: a graph with long paths and hubs.
        const target =
          random() < 0.8
            ? (source + 1 + Math.floor(random() * 50)) % NODES
            : Math.floor(random() ** 3 * NODES);
        return {
          source: name(source),
          target: name(target),
          relation: 'calls',
          evidence_span: `${name(source)}()`,
          segment_id: `function:${from + k}`,
          ts_start: 0,
          ts_end: 0,
          modality: 'code',
        };
      });
      await store.upsert(schema, [UpsertRequest.parse({ tenant_id: 'bench', edges })]);
    }
    const edgeSeconds = (performance.now() - started) / 1000;
    let graph = await store.graph(schema);
    console.log(`\nKnowledge graph: ${graph.nodes.size} nodes, ${graph.edges.size} edges in one tenant`);
    console.log(
      `node upserts: ${Math.round(NODES / nodeSeconds)} nodes/s; edge upserts: ${Math.round(EDGES / edgeSeconds)} edges/s (batches of ${BATCH})`,
    );

    // The build's compactions settle first: a reader's rows are then those of the table as it stays.
    await lanceMaintenance(store.db).idle();
    const reloadStarted = performance.now();
    // Its own connection, as a new process has.
    const reader = new LanceGraphStore(new LanceDatabase(dir), template, encoder);
    graph = await reader.graph(schema);
    console.log(
      `reading the whole graph into a new process's memory: ${((performance.now() - reloadStarted) / 1000).toFixed(1)} s`,
    );

    // Another process writes a batch: a process holding the graph (an API function's, say) reads only the rows
    // written since.
    const writer = new LanceGraphStore(new LanceDatabase(dir), template, encoder);
    const batch = Array.from({ length: 1000 }, (_, k) => ({
      source: name(k * 7),
      target: name((k * 7 + 3) % NODES),
      relation: 'imports',
      evidence_span: `import ${name(k)}`,
      segment_id: `import:${k}`,
      ts_start: 0,
      ts_end: 0,
      modality: 'code',
    }));
    await writer.upsert(schema, [UpsertRequest.parse({ tenant_id: 'bench', edges: batch })]);
    // Its maintenance finishes first (a compaction it found due would make the reader read every row again).
    await lanceMaintenance(writer.db).idle();
    const compacted = lanceMaintenance(writer.db)
      .history()
      .some((outcome) => outcome.optimized);
    const catchUpStarted = performance.now();
    const caughtUp = await reader.graph(schema);
    console.log(
      `catching up with another process's batch of 1,000 edges: ${(performance.now() - catchUpStarted).toFixed(0)} ms (${reader.catchUps.rows} rows read, ${caughtUp.edges.size} edges now${compacted ? '; the writer compacted the table' : ''})`,
    );

    const time = async (runs: number, fn: (i: number) => unknown) => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        await fn(i);
        times.push(performance.now() - t);
      }
      return `${percentile(times, 50).toFixed(2).padStart(8)} ${percentile(times, 95).toFixed(2).padStart(8)} ${percentile(times, 99).toFixed(2).padStart(8)}`;
    };
    const pick = () => name(Math.floor(random() * NODES));
    const live = await store.graph(schema);
    console.log(
      `\n${'operation (ms)'.padEnd(28)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'p99'.padStart(8)}`,
    );
    console.log(
      `${'neighbors depth 1'.padEnd(28)} ${await time(1000, () => neighbors(live, 'bench', pick(), 1))}`,
    );
    console.log(
      `${'neighbors depth 3'.padEnd(28)} ${await time(200, () => neighbors(live, 'bench', pick(), 3))}`,
    );
    console.log(
      `${'path max depth 6'.padEnd(28)} ${await time(500, () => shortestPath(live, 'bench', pick(), pick(), 6))}`,
    );
    console.log(`${'stats'.padEnd(28)} ${await time(50, () => stats(live, 'bench'))}`);
    const queries = [
      'parse tenant',
      'render schema helper',
      'stream upload',
      'vector index module',
      'query graph',
    ];
    console.log(
      `${'node search top 10'.padEnd(28)} ${await time(100, (i) => searchNodes(live, encoder, queries[i % queries.length]!, 10))}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
