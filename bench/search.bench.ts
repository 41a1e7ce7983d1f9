/**
 * Content index figures on 100,000 chunks of real code from node_modules with the embedded encoder:
 * feed throughput and memory, query latency of every strategy at top_k 10, and the binary MaxSim scan rate
 * next to a bare popcount loop over the same codes.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMultiVectorEncoder } from '@tessera/encoders';
import {
  binaryMaxSim,
  LanceContentIndex,
  LanceSearchBackend,
  lanceConnection,
  popcount32,
  RankingStrategy,
  rank,
  SchemaCatalog,
} from '@tessera/search';

const root = path.resolve(import.meta.dirname, '..');
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100_000);
const BATCH = 1000;

/** ~10-line chunks of the JavaScript files of node_modules, skipping minified and generated files. */
function* codeChunks(dir: string): Generator<{ file: string; text: string }> {
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

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

export async function searchBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-search-bench-'));
  try {
    const template = new SchemaCatalog(path.join(root, 'configs/schemas')).get('code')!;
    const schema = 'code_bench_bench';
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const index = new LanceContentIndex(lanceConnection(dir));
    await index.ensureIndexes(schema, template);
    const encoder = createMultiVectorEncoder();

    // Feed.
    const queries: string[] = [];
    let batch: { file: string; text: string }[] = [];
    let fed = 0;
    let tokens = 0;
    const memory: string[] = [];
    let peak = 0;
    const started = performance.now();
    const flush = async () => {
      const vectors = await encoder.encode(
        batch.map((c) => c.text),
        'document',
      );
      await index.upsert(
        schema,
        template,
        batch.map((chunk, i) => {
          tokens += vectors[i]!.tokens;
          return {
            document_id: `c${fed + i}`,
            source_doc_id: path.relative(root, chunk.file),
            text: chunk.text,
            embedding: { tokens: vectors[i]!.tokens, values: vectors[i]!.vectors },
            embedding_binary: { tokens: vectors[i]!.tokens, values: vectors[i]!.binary },
          };
        }),
      );
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
      if (batch.length === BATCH) await flush();
      if (fed >= CHUNKS) break;
    }
    if (batch.length > 0) await flush();
    const feedSeconds = (performance.now() - started) / 1000;
    const optimizeStarted = performance.now();
    await index.optimize(schema);
    const optimizeSeconds = (performance.now() - optimizeStarted) / 1000;

    console.log(
      `\nContent index: ${fed} chunks of node_modules code, ${(tokens / fed).toFixed(1)} document tokens per chunk (${encoder.name})`,
    );
    console.log(
      `feed: ${(fed / feedSeconds).toFixed(0)} chunks/s (${feedSeconds.toFixed(1)} s), then optimize ${optimizeSeconds.toFixed(1)} s`,
    );
    console.log(`memory while feeding: ${memory.join(', ')}; peak ${mb(peak)}`);

    // Query latency per strategy.
    const target = { index, schema, textFields: ['symbol', 'docstring', 'text'] };
    const encoded = await encoder.encode(queries, 'query');
    await rank(target, 'binary_binary', { text: queries[0]!, vectors: encoded[0]! }, 10); // loads the code cache
    console.log(`\nquery latency at top_k 10 (ms), ${queries.length} queries taken from the corpus`);
    console.log(
      `${'strategy'.padEnd(20)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'queries'.padStart(8)}`,
    );
    for (const strategy of RankingStrategy.options) {
      const times: number[] = [];
      const budget = performance.now() + 60_000;
      for (const [i, query] of queries.entries()) {
        const t = performance.now();
        await rank(target, strategy, { text: query, vectors: encoded[i]! }, 10);
        times.push(performance.now() - t);
        if (performance.now() > budget && times.length >= 5) break;
      }
      console.log(
        `${strategy.padEnd(20)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(times, 95).toFixed(1).padStart(8)} ${String(times.length).padStart(8)}`,
      );
    }

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
