/**
 * Agent figures: the gateway's classification of 1,000 varied queries through the local runtime
 * (`POST /agents/gateway_agent/process` with `classify_only`): the classification time the gateway reports
 * (entity tagger, keyword rules, the tenant's routing record) and the whole request. Target (issue 17):
 * classification p99 ≤ 100 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startRuntime } from './admin.bench';

const QUERIES = Number(process.env.BENCH_AGENTS_QUERIES ?? 1000);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function row(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cell = (value: number) => value.toFixed(2).padStart(8);
  return `${name.padEnd(48)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 99))} ${cell(sorted.at(-1)!)}`;
}

const SUBJECTS = [
  'the onboarding guide',
  'Marie Curie and Pierre Curie in Paris',
  'the quarterly revenue of Acme Corp',
  'parseConfig() in config.ts',
  'the keynote video from Berlin',
  'podcast episodes about Rust',
  'photos of the product launch',
  'the refund policy PDF',
  'LanceDB merge insert upserts',
  'the 2023 security incident at Globex',
];
const TEMPLATES = [
  'find {s}',
  'show me {s}',
  'what is {s}',
  'summarize {s}',
  'compare {s} with last year and explain why it changed',
  'write a detailed report on {s}, its history and its impact over time',
  'who wrote {s}?',
  'analyze the relationship between {s} and the pricing strategy, then list the pros and cons',
  '{s}',
  'where can I read about {s} and also its timeline',
];

export function benchQueries(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const template = TEMPLATES[i % TEMPLATES.length]!;
    const subject = SUBJECTS[Math.floor(i / TEMPLATES.length) % SUBJECTS.length]!;
    return `${template.replace('{s}', subject)}${i >= 100 ? ` #${i}` : ''}`;
  });
}

export async function agentsBench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-agents-bench-'));
  const runtime = await startRuntime(dataDir);
  try {
    const headers = { 'content-type': 'application/json' };
    await fetch(`${runtime.url}/admin/tenants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ tenant_id: 'bench', base_schemas: ['wiki'] }),
    });
    const classify = async (query: string) => {
      const started = performance.now();
      const response = await fetch(`${runtime.url}/agents/gateway_agent/process`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, context: { tenant_id: 'bench', classify_only: true } }),
      });
      const body = (await response.json()) as { result: { elapsed_ms: number; classification: string } };
      if (response.status !== 200)
        throw new Error(`gateway answered ${response.status}: ${JSON.stringify(body)}`);
      return { total: performance.now() - started, ...body.result };
    };
    for (const query of benchQueries(20)) await classify(query); // warm: tagger threads, record cache
    const classified: number[] = [];
    const totals: number[] = [];
    let complex = 0;
    for (const query of benchQueries(QUERIES)) {
      const answer = await classify(query);
      classified.push(answer.elapsed_ms);
      totals.push(answer.total);
      if (answer.classification === 'complex') complex++;
    }
    console.log(`\nAgents: gateway classification of ${QUERIES} varied queries (${complex} complex), ms`);
    console.log(`${''.padEnd(48)} ${'p50'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)}`);
    console.log(row('classification (reported by the gateway)', classified));
    console.log(row('whole request through the runtime', totals));
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
