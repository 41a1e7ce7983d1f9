/**
 * Memory figures (issue 17): recall p50/p95 of one agent's memories of a tenant holding 1,000 and 10,000 of
 * them, through the LanceDB memory store and the platform's embedded encoder (the production wiring, on a
 * temporary directory); the first recall of a process (the table read), the first recall after another
 * process wrote (the rows it added read); a memory's
 * store time; and how well each scoring finds the memory a query asks about (MRR@10 and hit@1 over queries
 * worded unlike the memory), which is why recall is hybrid.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbeddedEncoder, encodersEnv } from '@tessera/encoders';
import {
  indexed,
  LanceMemoryStore,
  type Memory,
  MemoryIndex,
  type RecallScoring,
  type RecallWeights,
} from '@tessera/memories';
import { LanceDatabase, LanceSearchBackend, SchemaCatalog } from '@tessera/search';

const QUERIES = Number(process.env.BENCH_MEMORY_QUERIES ?? 200);
const root = path.resolve(import.meta.dirname, '..');

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const SUBJECTS = [
  'the billing service',
  'the mobile app',
  'the data warehouse',
  'the onboarding guide',
  'the payments API',
  'the search cluster',
  'the marketing site',
  'the HR portal',
  'the VPN gateway',
  'the build pipeline',
  'the support desk',
  'the analytics dashboard',
  'the email relay',
  'the inventory system',
  'the identity provider',
  'the logging stack',
  'the design system',
  'the partner portal',
  'the backup vault',
  'the feature flags',
  'the chat widget',
  'the pricing page',
  'the release train',
  'the security scanner',
  'the office network',
];
/** Each fact: how a memory says it, and how a later query asks about it (other words where possible). */
const FACTS: { says: (s: string, n: number) => string; asks: (s: string) => string }[] = [
  {
    says: (s, n) => `Q: who owns ${s}\nA: ${s} is maintained by team ${n}.`,
    asks: (s) => `which team is responsible for ${s}`,
  },
  {
    says: (s, n) => `Q: cost of ${s}\nA: ${s} costs ${n} dollars a month.`,
    asks: (s) => `monthly price of ${s}`,
  },
  {
    says: (s, n) => `Q: ${s} outage\nA: ${s} went down for ${n} minutes after a failed deploy.`,
    asks: (s) => `incident downtime ${s}`,
  },
  {
    says: (s, n) => `Q: where is ${s} hosted\nA: ${s} runs in region eu-west-${n}.`,
    asks: (s) => `which datacenter region hosts ${s}`,
  },
  {
    says: (s, n) => `Q: ${s} language\nA: ${s} is written in Rust, version ${n}.`,
    asks: (s) => `programming language used by ${s}`,
  },
  {
    says: (s, n) => `Q: ${s} users\nA: ${s} has ${n} thousand active customers.`,
    asks: (s) => `how many people use ${s}`,
  },
  {
    says: (s, n) => `Q: ${s} backups\nA: backups of ${s} are kept for ${n} days.`,
    asks: (s) => `retention period of ${s} snapshots`,
  },
  {
    says: (s, n) => `Q: ${s} contact\nA: questions about ${s} go to channel ops-${n}.`,
    asks: (s) => `who to ask about ${s}`,
  },
];

/** `count` memories of one agent: each subject and fact once per round, numbers telling rounds apart. */
function memories(count: number): Memory[] {
  const list: Memory[] = [];
  for (let i = 0; list.length < count; i++) {
    const subject = SUBJECTS[i % SUBJECTS.length]!;
    const fact = FACTS[Math.floor(i / SUBJECTS.length) % FACTS.length]!;
    const round = Math.floor(i / (SUBJECTS.length * FACTS.length));
    list.push({
      memory_id: `m${i}`,
      agent_name: 'search_agent',
      content: fact.says(round === 0 ? subject : `${subject} ${round}`, 10 + (i % 89)),
      created_at: 1_700_000_000_000 + i,
    });
  }
  return list;
}

/** Named weightings compared: the three scorings recall knows, and hybrids weighing BM25 otherwise. */
const WEIGHTINGS: [string, RecallScoring | RecallWeights][] = [
  ['hybrid (recall)', 'hybrid'],
  ['vector', 'vector'],
  ['bm25', 'bm25'],
  ['vector + 0.1 bm25', { vector: 1, text: 0.1 }],
  ['vector + 0.5 bm25', { vector: 1, text: 0.5 }],
  ['vector + 1.0 bm25', { vector: 1, text: 1 }],
];

async function relevance(): Promise<void> {
  const encoder = createEmbeddedEncoder(encodersEnv.embeddedEncoder);
  const written = memories(SUBJECTS.length * FACTS.length);
  const vectors = await encoder.encode(
    written.map((m) => m.content),
    'document',
  );
  const index = new MemoryIndex(1);
  for (const [i, memory] of written.entries()) index.add(indexed(memory, vectors[i]!));
  // Each memory asked about twice: in other words, and in the words of the query that left it.
  const sets = {
    paraphrased: written.map((_, i) =>
      FACTS[Math.floor(i / SUBJECTS.length)]!.asks(SUBJECTS[i % SUBJECTS.length]!),
    ),
    literal: written.map((memory) => memory.content.split('\n')[0]!.slice(3)),
  };
  process.stdout.write(
    `\nMemory recall relevance: ${written.length} memories of one agent, each asked about once per set (MRR@10 / hit@1)\n`,
  );
  process.stdout.write(`${''.padEnd(20)} ${'paraphrased'.padStart(15)} ${'literal'.padStart(15)}\n`);
  const encoded = new Map<string, Awaited<ReturnType<typeof encoder.encode>>[number]>();
  for (const query of [...sets.paraphrased, ...sets.literal])
    if (!encoded.has(query)) encoded.set(query, (await encoder.encode([query], 'query'))[0]!);
  for (const [name, scoring] of WEIGHTINGS) {
    const cells = Object.values(sets).map((queries) => {
      let mrr = 0;
      let hits = 0;
      for (const [i, memory] of written.entries()) {
        const ranked = index.recall('search_agent', queries[i]!, encoded.get(queries[i]!)!, 10, scoring);
        const rank = ranked.findIndex((m) => m.memory_id === memory.memory_id);
        if (rank >= 0) mrr += 1 / (rank + 1);
        if (rank === 0) hits++;
      }
      return `${(mrr / written.length).toFixed(3)} / ${(hits / written.length).toFixed(3)}`.padStart(15);
    });
    process.stdout.write(`${name.padEnd(20)} ${cells.join(' ')}\n`);
  }
}

async function latency(count: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'memories-bench-'));
  try {
    const catalog = new SchemaCatalog(path.join(root, 'configs/schemas'));
    const template = catalog.get('agent_memories')!;
    const encoder = createEmbeddedEncoder(encodersEnv.embeddedEncoder);
    const schema = 'agent_memories_bench_tenant';
    await new LanceSearchBackend(new LanceDatabase(dir)).deploySchema(schema, template);
    const writer = new LanceMemoryStore(new LanceDatabase(dir), template, encoder);
    const all = memories(count);
    for (let start = 0; start < all.length; start += 1000)
      await writer.add(schema, all.slice(start, start + 1000));
    // A store that sees the table first (another process): its first recall reads the table.
    const reader = new LanceMemoryStore(new LanceDatabase(dir), template, encoder);
    let started = performance.now();
    await reader.recall(schema, 'search_agent', 'warm up', 5);
    const firstMs = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const query = FACTS[i % FACTS.length]!.asks(SUBJECTS[(i * 7) % SUBJECTS.length]!);
      started = performance.now();
      await reader.recall(schema, 'search_agent', query, 5);
      times.push(performance.now() - started);
    }
    // Another process writes one memory: the next recall here reads what it wrote (median of 5).
    const afterWrite: number[] = [];
    for (let i = 0; i < 5; i++) {
      await writer.add(schema, [{ ...all[i]!, memory_id: `other${i}`, created_at: Date.now() }]);
      started = performance.now();
      const recalled = await reader.recall(schema, 'search_agent', FACTS[0]!.asks(SUBJECTS[i]!), 5);
      afterWrite.push(performance.now() - started);
      if (!(await reader.list(schema)).some((m) => m.memory_id === `other${i}`))
        throw new Error(`the memory another process wrote was not read (${recalled.length} recalled)`);
    }
    const stores: number[] = [];
    for (let i = 0; i < 50; i++) {
      started = performance.now();
      await reader.add(schema, [{ ...all[i]!, memory_id: `extra${i}`, created_at: Date.now() }]);
      stores.push(performance.now() - started);
    }
    const sorted = times.sort((a, b) => a - b);
    const afterWriteMs = percentile(
      afterWrite.sort((a, b) => a - b),
      50,
    );
    const storeSorted = stores.sort((a, b) => a - b);
    process.stdout.write(
      `${String(count).padStart(6)} memories  recall p50 ${percentile(sorted, 50).toFixed(2)} ms  p95 ${percentile(sorted, 95).toFixed(2)} ms  ` +
        `max ${sorted.at(-1)!.toFixed(2)} ms  first recall (table read) ${firstMs.toFixed(0)} ms  ` +
        `first recall after another process wrote p50 ${afterWriteMs.toFixed(1)} ms  ` +
        `store p50 ${percentile(storeSorted, 50).toFixed(2)} ms p95 ${percentile(storeSorted, 95).toFixed(2)} ms\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function memoriesBench(): Promise<void> {
  await relevance();
  process.stdout.write(
    `\nMemory recall through LanceMemoryStore (${encodersEnv.embeddedEncoder}, top 5 of one agent, ${QUERIES} queries)\n`,
  );
  for (const count of [1000, 10_000]) await latency(count);
}
