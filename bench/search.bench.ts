/**
 * Content index figures on 100,000 chunks of real code from node_modules with the embedded encoder, the
 * table built as users build it: 500 uploads of 200 chunks, one commit each, with the background upkeep
 * (compaction, index updates, removal of old versions) the writes call for. Then the query latency of every
 * strategy at top_k 10 while another process keeps uploading 200 chunks every `BENCH_INGEST_INTERVAL_MS`
 * (2,000 ms); `BENCH_SEARCH_FEED=bulk` feeds 1,000 chunks a commit and optimizes once instead, as before.
 * Last, the binary MaxSim scan rate next to a bare popcount loop over the same codes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMultiVectorEncoder, type MultiVectorEncoder } from '@tessera/encoders';
import {
  binaryMaxSim,
  type DocumentRow,
  LanceContentIndex,
  LanceSearchBackend,
  lanceConnection,
  lanceMaintenance,
  popcount32,
  RankingStrategy,
  rank,
  SchemaCatalog,
  type SchemaTemplate,
} from '@tessera/search';

const root = path.resolve(import.meta.dirname, '..');
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100_000);
const UPLOAD = 200;
const BULK = process.env.BENCH_SEARCH_FEED === 'bulk';
const INTERVAL_MS = Number(process.env.BENCH_INGEST_INTERVAL_MS ?? 2000);
const SCHEMA = 'code_bench_bench';

/** ~10-line chunks of the JavaScript files of node_modules, skipping minified and generated files. */
export function* codeChunks(dir: string): Generator<{ file: string; text: string }> {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(full);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      if (name !== '.cache' && name !== '.bin') yield* codeChunks(full);
      continue;
    }
    if (
      !/\.(js|mjs|cjs|ts)$/.test(name) ||
      name.endsWith('.d.ts') ||
      stat.size > 400_000 ||
      name.includes('.min.')
    )
      continue;
    const lines = readFileSync(full, 'utf8').split('\n');
    if (lines.some((line) => line.length > 500)) continue;
    for (let i = 0; i < lines.length; i += 10) {
      const text = lines
        .slice(i, i + 10)
        .join('\n')
        .trim();
      if (text.length > 80) yield { file: full, text };
    }
  }
}

/** The rows of chunks as content indexing writes them, each file a source. */
export async function chunkRows(
  encoder: MultiVectorEncoder,
  chunks: { file: string; text: string }[],
  first: number,
  prefix = 'c',
): Promise<{ rows: DocumentRow[]; sources: string[]; tokens: number }> {
  const vectors = await encoder.encode(
    chunks.map((c) => c.text),
    'document',
  );
  let tokens = 0;
  const rows = chunks.map((chunk, i) => {
    tokens += vectors[i]!.tokens;
    return {
      document_id: `${prefix}${first + i}`,
      // A file is a source; one cut across two uploads is two (an upload holds whole sources).
      source_doc_id: `${prefix}:${path.relative(root, chunk.file)}@${first}`,
      text: chunk.text,
      ingested_at: Date.now(),
      embedding: { tokens: vectors[i]!.tokens, values: vectors[i]!.vectors },
      embedding_binary: { tokens: vectors[i]!.tokens, values: vectors[i]!.binary },
    };
  });
  return { rows, sources: [...new Set(rows.map((row) => row.source_doc_id))], tokens };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

export const templateOf = (): SchemaTemplate =>
  new SchemaCatalog(path.join(root, 'configs/schemas')).get('code')!;

/** Another process uploading 200 chunks every interval into the table, until stopped. */
function startWriter(dir: string): {
  child: ChildProcess;
  started: Promise<void>;
  stop: () => Promise<string>;
} {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'search-writer.ts'), dir, SCHEMA, String(INTERVAL_MS)],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  let first: () => void;
  const started = new Promise<void>((resolve) => {
    first = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('upload 1 ')) first();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    started,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return output.trim().split('\n').at(-1) ?? '';
    },
  };
}

export async function searchBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-search-bench-'));
  try {
    const template = templateOf();
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(SCHEMA, template);
    const index = new LanceContentIndex(lanceConnection(dir));
    await index.ensureIndexes(SCHEMA, template);
    const encoder = createMultiVectorEncoder();

    // Feed.
    const queries: string[] = [];
    let batch: { file: string; text: string }[] = [];
    let fed = 0;
    let tokens = 0;
    const memory: string[] = [];
    const commits: number[] = [];
    let peak = 0;
    const started = performance.now();
    const flush = async () => {
      const { rows, sources, tokens: more } = await chunkRows(encoder, batch, fed);
      tokens += more;
      const t = performance.now();
      if (BULK) await index.upsert(SCHEMA, template, rows);
      else {
        await index.replaceSources(SCHEMA, template, sources, rows);
        await index.maintain(SCHEMA);
      }
      commits.push(performance.now() - t);
      fed += batch.length;
      batch = [];
      peak = Math.max(peak, process.memoryUsage().rss);
      if (fed % (CHUNKS / 4) === 0) {
        const usage = process.memoryUsage();
        memory.push(`${fed}: rss ${mb(usage.rss)} (JS heap ${mb(usage.heapUsed)})`);
      }
    };
    for (const chunk of codeChunks(path.join(root, 'node_modules'))) {
      batch.push(chunk);
      if ((fed + batch.length) % 997 === 0)
        queries.push(
          chunk.text
            .split('\n')
            .find((l) => l.trim().length > 20)
            ?.trim() ?? chunk.text,
        );
      if (batch.length === (BULK ? 1000 : UPLOAD)) await flush();
      if (fed >= CHUNKS) break;
    }
    if (batch.length > 0) await flush();
    const feedSeconds = (performance.now() - started) / 1000;
    const upkeepStarted = performance.now();
    if (BULK) await index.optimize(SCHEMA);
    else await lanceMaintenance(index.db).idle();
    const upkeepSeconds = (performance.now() - upkeepStarted) / 1000;
    const table = (await index.table(SCHEMA))!;
    const stats = await table.stats();

    console.log(
      `\nContent index: ${fed} chunks of node_modules code, ${(tokens / fed).toFixed(1)} document tokens per chunk (${encoder.name})`,
    );
    console.log(
      BULK
        ? `feed: ${(fed / feedSeconds).toFixed(0)} chunks/s (${feedSeconds.toFixed(1)} s) in commits of 1,000, then optimize ${upkeepSeconds.toFixed(1)} s`
        : `feed: ${commits.length} uploads of ${UPLOAD} chunks, ${(fed / feedSeconds).toFixed(0)} chunks/s (${feedSeconds.toFixed(1)} s); commit p50 ${percentile(commits, 50).toFixed(0)} ms, p95 ${percentile(commits, 95).toFixed(0)} ms; median by 100 uploads: ${Array.from({ length: Math.ceil(commits.length / 100) }, (_, k) => percentile(commits.slice(k * 100, (k + 1) * 100), 50).toFixed(0)).join(', ')} ms; background upkeep still running at the end ${upkeepSeconds.toFixed(1)} s`,
    );
    if (!BULK) {
      const runs = lanceMaintenance(index.db)
        .history()
        .filter((run) => run.optimized);
      const rebuilds = lanceMaintenance(index.db)
        .history()
        .filter((run) => (run.rebuilt?.length ?? 0) > 0).length;
      console.log(
        `upkeep: ${rebuilds} rebuilds of the B-trees alone, ${runs.length} compactions (${runs.map((run) => `${run.fragmentsBefore}→${run.fragmentsAfter} fragments in ${(run.ms / 1000).toFixed(1)} s`).join(', ')}); now ${stats.fragmentStats.numFragments} fragments, ${mb(stats.totalBytes)}`,
      );
    }
    console.log(`memory while feeding: ${memory.join(', ')}; peak ${mb(peak)}`);

    // Query latency per strategy, with another process uploading meanwhile.
    const target = { index, schema: SCHEMA, textFields: ['symbol', 'docstring', 'text'] };
    const encoded = await encoder.encode(queries, 'query');
    let t = performance.now();
    await rank(target, 'hybrid_bm25_binary', { text: queries[0]!, vectors: encoded[0]! }, 10);
    console.log(
      `first query (reads the table's snapshot: codes and text terms): ${(performance.now() - t).toFixed(0)} ms`,
    );
    t = performance.now();
    await rank(target, 'binary_binary', { text: queries[0]!, vectors: encoded[0]! }, 10);
    console.log(`second (builds the band indexes): ${(performance.now() - t).toFixed(0)} ms`);
    const writer = BULK ? undefined : startWriter(dir);
    // Measured once the other process has made its first upload, so that every strategy runs beside it.
    await writer?.started;
    console.log(
      `\nquery latency at top_k 10 (ms), ${queries.length} queries taken from the corpus${writer ? `, another process uploading ${UPLOAD} chunks every ${INTERVAL_MS} ms` : ''}`,
    );
    console.log(
      `${'strategy'.padEnd(20)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'queries'.padStart(8)}`,
    );
    try {
      for (const strategy of RankingStrategy.options) {
        // At least 20 s of queries a strategy (the query list again as needed), so that several uploads land.
        const times: number[] = [];
        const until = performance.now() + 20_000;
        for (let i = 0; performance.now() < until || i < queries.length; i++) {
          const at = i % queries.length;
          const t = performance.now();
          await rank(target, strategy, { text: queries[at]!, vectors: encoded[at]! }, 10);
          times.push(performance.now() - t);
          if (i >= 5 * queries.length) break;
        }
        console.log(
          `${strategy.padEnd(20)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(times, 95).toFixed(1).padStart(8)} ${String(times.length).padStart(8)}`,
        );
      }
    } finally {
      if (writer) console.log(`concurrent writer: ${await writer.stop()}`);
    }
    const refreshes = index.refreshes.filter((r) => !r.whole).map((r) => r.ms);
    if (refreshes.length > 0)
      console.log(
        `snapshot refreshes for new versions while measuring: ${refreshes.length}, p50 ${percentile(refreshes, 50).toFixed(0)} ms, p95 ${percentile(refreshes, 95).toFixed(0)} ms, max ${Math.max(...refreshes).toFixed(0)} ms`,
      );
    const snapshot = await index.snapshot(SCHEMA);
    console.log(
      `snapshot at the end: ${snapshot!.liveCount} live documents in ${snapshot!.segments.length} segments (${snapshot!.segments.map((s) => s.liveCount).join(', ')})`,
    );

    scanRate();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Binary MaxSim over 32 query × 64 document tokens, against the bare XOR-popcount loop over the same codes. */
function scanRate(): void {
  const docs = 20_000;
  const docTokens = 64;
  const queryTokens = 32;
  const codes = new Uint32Array(docs * docTokens * 4);
  const query = new Uint32Array(queryTokens * 4);
  let seed = 42;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed;
  };
  codes.forEach((_, i) => {
    codes[i] = next();
  });
  query.forEach((_, i) => {
    query[i] = next();
  });
  const rounds = 3;
  let sink = 0;
  let t = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (let d = 0; d < docs; d++)
      sink += binaryMaxSim(query, queryTokens, codes, d * docTokens * 4, docTokens);
  }
  const maxSimRate = (docs * rounds) / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (let d = 0; d < docs; d++) {
      const base = d * docTokens * 4;
      let acc = 0;
      for (let q = 0; q < queryTokens * 4; q += 4) {
        const q0 = query[q]!;
        const q1 = query[q + 1]!;
        const q2 = query[q + 2]!;
        const q3 = query[q + 3]!;
        for (let o = base; o < base + docTokens * 4; o += 4) {
          acc =
            (acc +
              popcount32(q0 ^ codes[o]!) +
              popcount32(q1 ^ codes[o + 1]!) +
              popcount32(q2 ^ codes[o + 2]!) +
              popcount32(q3 ^ codes[o + 3]!)) |
            0;
        }
      }
      sink += acc;
    }
  }
  const bareRate = (docs * rounds) / ((performance.now() - t) / 1000);
  console.log(
    `\nbinary MaxSim scan (32 query × 64 document tokens, one core): ${Math.round(maxSimRate)} docs/s`,
  );
  console.log(
    `bare XOR-popcount loop over the same codes: ${Math.round(bareRate)} docs/s; MaxSim at ${((100 * maxSimRate) / bareRate).toFixed(0)}% (checksum ${sink % 1000})`,
  );
}
