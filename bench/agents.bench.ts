/**
 * Agent figures through the local runtime:
 * - the gateway's classification of 1,000 varied queries (`POST /agents/gateway_agent/process` with
 *   `classify_only`): the time the gateway reports and the whole request. Target (issue 17): p99 ≤ 100 ms.
 * - the search agent end to end (`POST /agents/search_agent/process`) on a tenant of 10,000 chunks (README
 *   paragraphs of node_modules, `BENCH_AGENTS_CHUNKS`), 200 queries (`BENCH_AGENTS_SEARCHES`). Target: p95 ≤ 150 ms.
 * - the orchestrator's overhead: 30 runs (`BENCH_AGENTS_ORCHESTRATIONS`) of a three-step plan (two steps at once,
 *   then one after them) with the planner and the aggregation on a loopback OpenAI-compatible server that
 *   answers at once; overhead = the run's wall time minus its sub-agents' time (each group's slowest step).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openAIChat, startServer } from '@tessera/testing';
import { startRuntime } from './admin.bench';

const QUERIES = Number(process.env.BENCH_AGENTS_QUERIES ?? 1000);
const CHUNKS = Number(process.env.BENCH_AGENTS_CHUNKS ?? 10_000);
const SEARCHES = Number(process.env.BENCH_AGENTS_SEARCHES ?? 200);
const ORCHESTRATIONS = Number(process.env.BENCH_AGENTS_ORCHESTRATIONS ?? 30);
const root = path.resolve(import.meta.dirname, '..');

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function row(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cell = (value: number) => value.toFixed(2).padStart(8);
  return `${name.padEnd(48)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 99))} ${cell(sorted.at(-1)!)}`;
}

function row95(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cell = (value: number) => value.toFixed(2).padStart(8);
  return `${name.padEnd(48)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 95))} ${cell(sorted.at(-1)!)}`;
}

/** Indexes `count` chunks for `tenant` in a child process pointed at the runtime's stores. */
async function seed(dataDir: string, emulatorUrl: string, tenant: string, count: number): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/agents-seed.ts', tenant, String(count)], {
    cwd: root,
    env: {
      ...process.env,
      TESSERA_DATA_DIR: dataDir,
      AWS_ENDPOINT_URL: emulatorUrl,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      TESSERA_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`seeding failed (${code}):\n${output}`);
  return output.trim().split('\n').at(-1)!;
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const SEARCH_TERMS = [
  'install the package with npm',
  'configuration options',
  'license MIT',
  'how to run the tests',
  'TypeScript types',
  'streaming responses',
  'error handling and retries',
  'browser support',
  'command line usage',
  'performance benchmarks',
];

async function searchAgentBench(url: string, tenant: string): Promise<void> {
  const search = async (query: string) => {
    const started = performance.now();
    const answer = await post(`${url}/agents/search_agent/process`, {
      query,
      context: { tenant_id: tenant, profile: 'document_text_semantic' },
    });
    if (answer.status !== 200)
      throw new Error(`search agent answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return performance.now() - started;
  };
  for (const query of SEARCH_TERMS) await search(query); // warm: encoder, table, caches
  const times: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    times.push(
      await search(`${SEARCH_TERMS[i % SEARCH_TERMS.length]!}${i >= SEARCH_TERMS.length ? ` ${i}` : ''}`),
    );
  }
  console.log(
    `\nAgents: search agent end to end on ${CHUNKS.toLocaleString('en')} chunks, ${SEARCHES} queries, ms`,
  );
  console.log(`${''.padEnd(48)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'max'.padStart(8)}`);
  console.log(row95('POST /agents/search_agent/process', times));
}

interface Orchestration {
  plan: { parallel_groups: number[][] };
  step_results: { step: number; status: string; elapsed_ms: number }[];
  timings: Record<string, number>;
}

async function orchestratorBench(url: string, tenant: string): Promise<void> {
  const llm = await startServer(
    openAIChat((request) => {
      if (request.response_format!.json_schema!.name === 'orchestration_plan') {
        return {
          content: {
            steps: [
              { agent_name: 'search_agent', query: 'install the package', depends_on: [] },
              { agent_name: 'document_agent', query: 'configuration options', depends_on: [] },
              { agent_name: 'summarizer_agent', query: 'summarize', depends_on: [0, 1] },
            ],
          },
        };
      }
      if (request.response_format!.json_schema!.name === 'summary')
        return { content: { summary: 'A summary.' } };
      return { content: { final_answer: 'An answer.' } };
    }),
  );
  try {
    const put = await fetch(`${url}/admin/tenants/${tenant}/config/llm`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/bench', api_base: `${llm.url}/v1` }),
    });
    if (!put.ok) throw new Error(`llm record: ${put.status} ${await put.text()}`);
    const run = async () => {
      const started = performance.now();
      const answer = await post(`${url}/agents/orchestrator_agent/process`, {
        query: 'how do I install and configure the package',
        context: { tenant_id: tenant, profile: 'document_text_semantic' },
      });
      const wall = performance.now() - started;
      if (answer.status !== 200)
        throw new Error(`orchestrator answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      const result = (answer.body.result as { orchestration_result: Orchestration }).orchestration_result;
      if (result.step_results.some((step) => step.status !== 'completed')) {
        throw new Error(`a step failed: ${JSON.stringify(result.step_results)}`);
      }
      const byStep = new Map(result.step_results.map((step) => [step.step, step.elapsed_ms]));
      const subAgents = result.plan.parallel_groups.reduce(
        (sum, group) => sum + Math.max(...group.map((step) => byStep.get(step) ?? 0)),
        0,
      );
      return { wall, subAgents, steps: result.step_results.length, timings: result.timings };
    };
    for (let i = 0; i < 3; i++) await run(); // warm
    const walls: number[] = [];
    const subs: number[] = [];
    const overheads: number[] = [];
    const perStep: number[] = [];
    const planning: number[] = [];
    for (let i = 0; i < ORCHESTRATIONS; i++) {
      const figures = await run();
      walls.push(figures.wall);
      subs.push(figures.subAgents);
      overheads.push(figures.wall - figures.subAgents);
      perStep.push((figures.wall - figures.subAgents) / figures.steps);
      planning.push(figures.timings.planning_ms ?? 0);
    }
    console.log(
      `\nAgents: orchestrator overhead, ${ORCHESTRATIONS} runs of 3 steps in 2 groups, instant LLM, ms`,
    );
    console.log(`${''.padEnd(48)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'max'.padStart(8)}`);
    console.log(row95('orchestrator wall time (whole request)', walls));
    console.log(row95("sub-agents' time (slowest step of each group)", subs));
    console.log(row95('overhead (wall − sub-agents)', overheads));
    console.log(row95('overhead per step', perStep));
    console.log(row95('planning (the planner call)', planning));
  } finally {
    await llm.close();
  }
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
  // The web client is not measured here (and its port may be taken).
  const runtime = await startRuntime(dataDir, { TESSERA_WEB: 'off' });
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

    if (!runtime.emulatorUrl) throw new Error('the runtime did not say where its emulators are');
    const tenant = 'bench';
    console.log(
      `\n(${await seed(dataDir, runtime.emulatorUrl, tenant, CHUNKS)} chunks for the search agent)`,
    );
    await searchAgentBench(runtime.url, tenant);
    await orchestratorBench(runtime.url, tenant);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
