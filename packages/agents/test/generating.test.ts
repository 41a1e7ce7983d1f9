/**
 * The generating agents and the orchestrator over fakes, with sub-agents called over real HTTP: a loopback
 * server answers `/agents/{name}/process` with the same dispatch, so the orchestrator's calls go through
 * `fetch` as in the runtime. The LLM is the loopback OpenAI-compatible fake; tests assert what it was sent.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Config } from '@tessera/api';
import { putTenantConfig } from '@tessera/config';
import { indexDocuments } from '@tessera/content';
import { HttpError } from '@tessera/core';
import { UpsertRequest, upsertGraph } from '@tessera/graph';
import { createTenant, requireTenant } from '@tessera/tenancy';
import {
  type ChatRequest,
  failure,
  openAIChat,
  type SeenRequest,
  startServer,
  type TestServer,
} from '@tessera/testing';
import { fakeDomains } from '@tessera/testing/fakes';
import { textImage } from '@tessera/testing/media';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENTS,
  type AgentRun,
  type AgentsDeps,
  explainRun,
  HealthProbe,
  mediaOcr,
  normalizePlan,
  parseAgentsEnv,
  photoBytes,
  processAgent,
  registeredAgents,
  unsafePath,
} from '../src/index';
import { fakeAgentsDeps } from './support';

// biome-ignore lint/suspicious/noExplicitAny: JSON results the tests assert field by field
type Json = any;

const domains = fakeDomains();
const deps: AgentsDeps = fakeAgentsDeps(domains, {
  graph: domains.graph,
  settings: parseAgentsEnv({ TESSERA_DEEP_RESEARCH_MAX_ITERATIONS: '2' }),
});

/** A loopback runtime: `POST /agents/{name}/process` runs the dispatch over the fakes, `GET /health` answers. */
let runtime: TestServer;
let subAgentDelayMs = 0;
const base = () => ({ baseUrl: runtime.url });
const task = (query: string, context: Record<string, unknown> = {}, tenant = 'acme') => ({
  query,
  context: { tenant_id: tenant, ...context },
});

/** The fake LLM's answer per response format name; the requests it saw. */
let answers: Record<string, (request: ChatRequest) => unknown> = {};
let llm: TestServer;
const chats = () => llm.requests.map((seen) => seen.body as ChatRequest);
const formatOf = (chat: ChatRequest) => chat.response_format!.json_schema!;

async function useLlm(tenant = 'acme:acme') {
  await putTenantConfig(
    domains.config,
    tenant,
    'llm',
    Config.LlmEndpointConfig.parse({ model: 'openai/m', api_base: `${llm.url}/v1` }),
    'test',
  );
}
async function noLlm(tenant = 'acme:acme') {
  await putTenantConfig(
    domains.config,
    tenant,
    'llm',
    Config.LlmEndpointConfig.parse({ model: 'openai/none' }),
    'test',
  );
}

beforeAll(async () => {
  runtime = await startServer(async (seen: SeenRequest) => {
    if (seen.method === 'GET' && seen.url === '/health') return { status: 200, json: { status: 'ok' } };
    const match = /^\/agents\/([a-z_]+)\/process$/.exec(seen.url);
    if (!match || seen.method !== 'POST') return { status: 404, json: { detail: 'Not Found' } };
    if (subAgentDelayMs) await new Promise((resolve) => setTimeout(resolve, subAgentDelayMs));
    try {
      const answer = await processAgent(deps, match[1]!, seen.body as never, base());
      return { status: 200, json: answer };
    } catch (error) {
      if (error instanceof HttpError) return { status: error.status, json: { detail: error.detail } };
      return { status: 500, json: { detail: String(error) } };
    }
  });
  llm = await startServer(
    openAIChat((request) => {
      const answer = answers[request.response_format!.json_schema!.name];
      if (!answer) return { status: 500, json: { error: { message: 'no answer set' } } };
      return { content: answer(request) };
    }),
  );
  for (const tenant of ['acme', 'rival'])
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
  await indexDocuments(domains.content, {
    tenant: 'acme',
    profile: 'document_text_semantic',
    sourceDocId: 'handbook.md',
    documents: [
      {
        fields: {
          title: 'handbook.md',
          text: 'Invoices are paid within thirty days. Late invoices carry a fee of two percent.',
        },
      },
      { fields: { title: 'handbook.md', text: 'Refunds are granted within fourteen days of purchase.' } },
      {
        fields: {
          title: 'handbook.md',
          text: 'The search agent ranks chunks with BM25 and late interaction.',
        },
      },
    ],
  });
  await indexDocuments(domains.content, {
    tenant: 'rival',
    profile: 'document_text_semantic',
    sourceDocId: 'rival.md',
    documents: [
      { fields: { title: 'rival.md', text: 'Rival keeps its invoices in a shoebox under the desk.' } },
    ],
  });
  await upsertGraph(
    domains.graph,
    UpsertRequest.parse({
      tenant_id: 'acme',
      nodes: [{ name: 'Invoices' }, { name: 'Late fee' }, { name: 'Accounts payable' }],
      edges: [
        {
          source: 'Invoices',
          target: 'Late fee',
          relation: 'carries',
          evidence_span: 'x',
          segment_id: 's',
          ts_start: 0,
          ts_end: 0,
          modality: 'text',
        },
        {
          source: 'Accounts payable',
          target: 'Invoices',
          relation: 'pays',
          evidence_span: 'x',
          segment_id: 's',
          ts_start: 0,
          ts_end: 0,
          modality: 'text',
        },
      ],
    }),
  );
}, 60_000);

afterEach(async () => {
  subAgentDelayMs = 0;
  answers = {};
  llm.requests.length = 0;
  await noLlm();
});

afterAll(async () => {
  await runtime?.close();
  await llm?.close();
});

/** A run as dispatch builds it, with the tenant's instructions set (the instruction store fills them). */
async function runOf(
  query: string,
  instructions: string,
  context: Record<string, unknown> = {},
): Promise<AgentRun> {
  const guarded = await requireTenant(deps.content.tenancy, 'acme');
  return {
    tenant: guarded.tenant,
    guarded,
    query,
    context: { tenant_id: 'acme', ...context },
    instructions: async () => instructions,
    recall: async () => [
      { memory_id: 'm1', agent_name: 'orchestrator_agent', content: 'invoices live in the handbook' },
    ],
    agents: await registeredAgents(deps, runtime.url),
    signal: new AbortController().signal,
    phase: async () => undefined,
    report: async () => undefined,
    progress: async () => undefined,
    artifact: async () => undefined,
    checkpoint: () => undefined,
    dispatch: async () => ({}),
  };
}

describe('normalizePlan', () => {
  const allowed = new Set(['search_agent', 'summarizer_agent', 'document_agent']);
  const options = { allowed, maxSteps: 8, query: 'q' };

  it('drops unknown agents and the dependencies on them, keeping the others in order', () => {
    const { plan, dropped } = normalizePlan(
      {
        steps: [
          { agent_name: 'bogus_agent', query: 'a', depends_on: [] },
          { agent_name: 'search_agent', query: 'b', depends_on: [0] },
          { agent_name: 'summarizer_agent', query: '', depends_on: [1, 7, -1, 2] },
        ],
      },
      options,
    );
    expect(plan.steps).toEqual([
      { agent_name: 'search_agent', query: 'b', depends_on: [] },
      { agent_name: 'summarizer_agent', query: 'q', depends_on: [0] },
    ]);
    expect(plan.parallel_groups).toEqual([[0], [1]]);
    expect(dropped).toEqual([
      { agent_name: 'bogus_agent', reason: 'not an agent the orchestrator may call' },
    ]);
  });

  it('makes a cycle sequential in plan order and groups independent steps together', () => {
    const { plan } = normalizePlan(
      {
        steps: [
          { agent_name: 'search_agent', query: 'a', depends_on: [2] },
          { agent_name: 'document_agent', query: 'b', depends_on: [] },
          { agent_name: 'summarizer_agent', query: 'c', depends_on: [0] },
          { agent_name: 'summarizer_agent', query: 'd', depends_on: [0, 1] },
        ],
      },
      options,
    );
    // 0 ⇄ 2 is a cycle: 0 runs first, 2 after it.
    expect(plan.steps.map((s) => s.depends_on)).toEqual([[], [], [0], [0, 1]]);
    expect(plan.parallel_groups).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it('breaks a three-step cycle and a self-dependency, and keeps at most maxSteps', () => {
    const { plan, dropped } = normalizePlan(
      {
        steps: [
          { agent_name: 'search_agent', query: 'a', depends_on: [1, 0] },
          { agent_name: 'search_agent', query: 'b', depends_on: [2] },
          { agent_name: 'search_agent', query: 'c', depends_on: [0] },
          { agent_name: 'search_agent', query: 'e', depends_on: [] },
        ],
      },
      { ...options, maxSteps: 3 },
    );
    expect(plan.steps.map((s) => s.depends_on)).toEqual([[], [0], [1]]);
    expect(plan.parallel_groups).toEqual([[0], [1], [2]]);
    expect(dropped).toEqual([{ agent_name: 'search_agent', reason: 'beyond the limit of 3 steps' }]);
  });
});

describe('the orchestrator', () => {
  const plan = (steps: { agent_name: string; query: string; depends_on: number[] }[]) => () => ({ steps });

  it('answers 503 llm_unavailable without an LLM endpoint', async () => {
    const error = await failure(
      processAgent(deps, 'orchestrator_agent', task('compare invoices and refunds'), base()),
    );
    expect(error).toMatchObject({
      status: 503,
      detail: { error: 'llm_unavailable', message: 'No LLM endpoint is configured for tenant acme:acme' },
    });
  });

  it('is cancelled with the gateway run that started it, and the gateway run ends cancelled', async () => {
    await useLlm();
    // The orchestration's steps are slow: the cancel comes while its first step runs.
    subAgentDelayMs = 1500;
    answers = {
      orchestration_plan: plan([
        { agent_name: 'search_agent', query: 'late invoices fee', depends_on: [] },
        { agent_name: 'search_agent', query: 'refunds within days', depends_on: [0] },
      ]),
      orchestration_answer: () => ({ final_answer: 'not reached' }),
    };
    const before = new Set((await deps.events.tenantTasks('acme:acme')).map((t) => t.task_id));
    const chatsBefore = chats().length;
    const running = processAgent(
      deps,
      'gateway_agent',
      task('compare and analyze how late invoice fees versus refunds evolved over time, step by step', {
        workflow_id: 'wf-gateway-cancel',
      }),
      base(),
    );
    let orchestration: string | undefined;
    while (!orchestration) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      orchestration = (await deps.events.tenantTasks('acme:acme')).find(
        (t) => !before.has(t.task_id) && t.task_id !== 'wf-gateway-cancel',
      )?.task_id;
    }
    await deps.events.cancel('wf-gateway-cancel', 'workflow', 'user asked');
    expect(await running).toEqual({
      status: 'cancelled',
      agent: 'gateway_agent',
      workflow_id: 'wf-gateway-cancel',
      message: 'Workflow wf-gateway-cancel was cancelled: user asked',
    });
    const child = await deps.events.read(orchestration, 0, 100);
    expect(child.at(-1)).toMatchObject({
      type: 'status',
      state: 'cancelled',
      message: 'its parent workflow wf-gateway-cancel was cancelled: user asked',
    });
    // It planned, and never came to its answer.
    expect(
      chats()
        .slice(chatsBefore)
        .map((chat) => formatOf(chat).name),
    ).toEqual(['orchestration_plan']);
  });

  it('plans once with an enum of the enabled agents, runs groups over HTTP at once, aggregates', async () => {
    await useLlm();
    subAgentDelayMs = 150;
    answers = {
      orchestration_plan: plan([
        { agent_name: 'search_agent', query: 'late invoices fee', depends_on: [] },
        { agent_name: 'document_agent', query: 'refunds within days', depends_on: [] },
        { agent_name: 'summarizer_agent', query: 'summarize the fees', depends_on: [0, 1] },
        { agent_name: 'kg_traversal_agent', query: 'disabled agent', depends_on: [] },
      ]),
      orchestration_answer: (request) => ({
        final_answer: `answered from ${request.messages[1]!.content.length} chars`,
      }),
      summary: () => ({ summary: 'Fees: two percent.' }),
    };
    const before = runtime.requests.length;
    const started = performance.now();
    const answer = (await processAgent(
      deps,
      'orchestrator_agent',
      task('compare late invoice fees and refunds', { workflow_id: 'wf-orch' }),
      base(),
    )) as { status: string; result: { orchestration_result: Record<string, Json> } };
    const elapsed = performance.now() - started;
    expect(answer.status).toBe('completed');
    const result = answer.result.orchestration_result;
    expect(result.workflow_id).toBe('wf-orch');
    expect(result.plan.steps.map((s: { agent_name: string }) => s.agent_name)).toEqual([
      'search_agent',
      'document_agent',
      'summarizer_agent',
    ]);
    expect(result.plan.parallel_groups).toEqual([[0, 1], [2]]);
    expect(result.dropped_steps).toEqual([
      { agent_name: 'kg_traversal_agent', reason: 'not an agent the orchestrator may call' },
    ]);
    expect(result.step_results.map((s: { status: string }) => s.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(result.final_answer).toMatch(/^answered from \d+ chars$/);
    expect(result.sources.length).toBeGreaterThan(0);
    // Groups of two steps at 150 ms each, with the two of the first group at once: under 4 × 150 ms.
    expect(elapsed).toBeLessThan(4 * 150 + 1500);
    expect(runtime.maxInFlight).toBeGreaterThanOrEqual(2);
    // The sub-agents were called over HTTP, each with the tenant and without the workflow id.
    const calls = runtime.requests.slice(before).filter((r) => r.url.startsWith('/agents/'));
    const bodies = calls.map((r) => r.body as { agent_name: string; context: Record<string, unknown> });
    expect(bodies.map((b) => b.agent_name).sort()).toEqual([
      'document_agent',
      'search_agent',
      'summarizer_agent',
    ]);
    expect(bodies.every((b) => b.context.tenant_id === 'acme' && b.context.workflow_id === undefined)).toBe(
      true,
    );
    // The summarizer after the search read what the first group found.
    const summarizer = bodies.find((b) => b.agent_name === 'summarizer_agent')!;
    expect(String(summarizer.context.text)).toContain('Late invoices carry a fee');

    const planner = chats().find((c) => formatOf(c).name === 'orchestration_plan')!;
    expect(formatOf(planner).strict).toBe(true);
    const enumOf = (formatOf(planner).schema as Json).properties.steps.items.properties.agent_name
      .enum as string[];
    expect(enumOf).toContain('search_agent');
    expect(enumOf).toContain('coding_agent');
    expect(enumOf).not.toContain('kg_traversal_agent');
    expect(enumOf).not.toContain('orchestrator_agent');
    expect(chats().filter((c) => formatOf(c).name === 'orchestration_plan')).toHaveLength(1);

    const events = await deps.events.read('wf-orch', 0, 100);
    const phases = events.map((e) => ('phase' in e && e.phase ? e.phase : e.type));
    expect(
      phases.filter(
        (p) => !['select_profile', 'retrieval', 'summarize', 'summarized', 'artifact'].includes(p),
      ),
    ).toEqual([
      'started',
      'memory_context',
      'planning',
      'execution',
      'retrieval_iteration',
      'executing',
      'executing',
      'retrieval_iteration',
      'executing',
      'aggregating',
      'complete',
      'complete',
    ]);
    // The plan and the sources are events of the run, for its audit explanation.
    expect(events.flatMap((e) => (e.type === 'artifact' ? [e.artifact_type] : []))).toEqual([
      'plan',
      'sources',
    ]);
    const { tenant } = await requireTenant(deps.content.tenancy, 'acme');
    const explained = await explainRun(deps.events, tenant.full, 'wf-orch');
    expect(explained).toMatchObject({
      workflow_agent: 'orchestrator_agent',
      status: 'completed',
      plan: { steps: [{}, {}, {}], parallel_groups: [[0, 1], [2]] },
      sources: result.sources,
      event_count: events.length,
    });
    expect(explained.timings.phases.map((p) => p.phase)).toContain('planning');
    expect(explained.timings.total_ms).toBeGreaterThan(0);
    await expect(explainRun(deps.events, 'other:tenant', 'wf-orch')).rejects.toThrow(
      "Workflow 'wf-orch' not found",
    );
  });

  it('puts the tenant instructions and memories in the planner prompt', async () => {
    await useLlm();
    answers = {
      orchestration_plan: plan([{ agent_name: 'search_agent', query: 'invoices', depends_on: [] }]),
      orchestration_answer: () => ({ final_answer: 'ok' }),
    };
    const run = await runOf('invoices?', 'Always answer in French.');
    const result = (await AGENTS.get('orchestrator_agent')!.run(deps, run)) as Json;
    expect(result.orchestration_result.final_answer).toBe('ok');
    for (const chat of chats()) expect(chat.messages[0]!.content).toContain('Always answer in French.');
    expect(chats()[0]!.messages[1]!.content).toContain('invoices live in the handbook');
  });

  it('reports a failing sub-agent step failed, skips its dependants and says which', async () => {
    await useLlm();
    answers = {
      orchestration_plan: plan([
        { agent_name: 'coding_agent', query: 'write code', depends_on: [] },
        { agent_name: 'summarizer_agent', query: 'summarize it', depends_on: [0] },
        { agent_name: 'search_agent', query: 'invoices', depends_on: [] },
      ]),
      code_files: () => ({
        files: [{ path: '../etc/passwd', language: 'text', content: 'x' }],
        explanation: 'e',
      }),
      orchestration_answer: () => ({ final_answer: 'partial' }),
    };
    const answer = (await processAgent(deps, 'orchestrator_agent', task('write and search'), base())) as Json;
    const result = answer.result.orchestration_result;
    expect(result.step_results.map((s: { status: string }) => s.status)).toEqual([
      'failed',
      'skipped',
      'completed',
    ]);
    expect(result.step_results[0].error).toMatch(/coding_agent answered 502: .*escapes the project/);
    expect(result.failed_steps).toEqual([0, 1]);
    expect(result.final_answer).toBe('partial');
  });

  it('fails clearly on a plan of unknown agents only, on non-JSON and on an off-schema answer', async () => {
    await useLlm();
    answers = { orchestration_plan: plan([{ agent_name: 'hacker_agent', query: 'x', depends_on: [] }]) };
    let error = await failure(
      processAgent(deps, 'orchestrator_agent', task('q', { workflow_id: 'wf-unknown' }), base()),
    );
    expect(error).toMatchObject({
      status: 502,
      message: expect.stringMatching(/no agent this deployment can run.*hacker_agent/),
    });
    const events = await deps.events.read('wf-unknown', 0, 100);
    expect(events.at(-1)).toMatchObject({ type: 'error', recoverable: false });

    answers = { orchestration_plan: () => 'this is not json' };
    error = await failure(processAgent(deps, 'orchestrator_agent', task('q'), base()));
    expect(error).toMatchObject({ status: 502, message: expect.stringMatching(/not JSON/) });

    answers = { orchestration_plan: () => ({ plan: 'search everything' }) };
    error = await failure(processAgent(deps, 'orchestrator_agent', task('q'), base()));
    expect(error).toMatchObject({
      status: 502,
      message: expect.stringMatching(/does not match the orchestration plan schema/),
    });
  });

  it('stops at the next group when the run is cancelled during execution', async () => {
    await useLlm();
    subAgentDelayMs = 400;
    answers = {
      orchestration_plan: plan([
        { agent_name: 'search_agent', query: 'invoices', depends_on: [] },
        { agent_name: 'document_agent', query: 'refunds', depends_on: [0] },
      ]),
      orchestration_answer: () => ({ final_answer: 'never' }),
    };
    const before = runtime.requests.length;
    const running = processAgent(
      deps,
      'orchestrator_agent',
      task('q', { workflow_id: 'wf-orch-cancel' }),
      base(),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await deps.events.cancel('wf-orch-cancel', 'workflow', 'user asked');
    expect(await running).toEqual({
      status: 'cancelled',
      agent: 'orchestrator_agent',
      workflow_id: 'wf-orch-cancel',
      message: 'Workflow wf-orch-cancel was cancelled: user asked',
    });
    const events = await deps.events.read('wf-orch-cancel', 0, 100);
    expect(events.at(-1)).toMatchObject({ type: 'status', state: 'cancelled', message: 'user asked' });
    // The second group never ran.
    const calls = runtime.requests.slice(before).map((r) => r.url);
    expect(calls).toEqual(['/agents/search_agent/process']);
    expect(chats().some((c) => formatOf(c).name === 'orchestration_answer')).toBe(false);
  });

  it('takes a query of the largest size and plans it', async () => {
    await useLlm();
    answers = {
      orchestration_plan: (request) => ({
        steps: [
          { agent_name: 'search_agent', query: request.messages[1]!.content.slice(9, 40), depends_on: [] },
        ],
      }),
      orchestration_answer: () => ({ final_answer: 'done' }),
    };
    const answer = (await processAgent(
      deps,
      'orchestrator_agent',
      task(`invoices ${'x'.repeat(19_990)}`),
      base(),
    )) as Json;
    expect(answer.result.orchestration_result.final_answer).toBe('done');
    expect(chats()[0]!.messages[1]!.content.length).toBeGreaterThan(20_000);
  });

  it('ends with the ErrorEvent of document 3 when the LLM times out mid-run', async () => {
    const hanging = await startServer(openAIChat(() => 'hang'));
    try {
      await putTenantConfig(
        domains.config,
        'acme:acme',
        'llm',
        Config.LlmEndpointConfig.parse({
          model: 'openai/m',
          api_base: `${hanging.url}/v1`,
          request_timeout: 1,
        }),
        'test',
      );
      const error = await failure(
        processAgent(deps, 'orchestrator_agent', task('q', { workflow_id: 'wf-llm-timeout' }), base()),
      );
      expect(error).toMatchObject({
        status: 502,
        message: expect.stringMatching(/did not answer within 1 s/),
      });
      const events = await deps.events.read('wf-llm-timeout', 0, 100);
      expect(events.at(-1)).toMatchObject({
        type: 'error',
        error_type: 'LlmCallError',
        error_message: 'orchestrator_agent failed with LlmCallError',
        recoverable: false,
      });
    } finally {
      await hanging.close();
    }
  });

  it('stops during planning when cancelled then', async () => {
    await useLlm();
    answers = {
      orchestration_plan: plan([{ agent_name: 'search_agent', query: 'invoices', depends_on: [] }]),
    };
    const slow = llm;
    const delayed = await startServer(
      openAIChat(async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return { content: answers[request.response_format!.json_schema!.name]!(request) };
      }),
    );
    llm = delayed;
    await useLlm();
    const before = runtime.requests.length;
    try {
      const running = processAgent(
        deps,
        'orchestrator_agent',
        task('q', { workflow_id: 'wf-plan-cancel' }),
        base(),
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      await deps.events.cancel('wf-plan-cancel', 'workflow', 'changed my mind');
      expect(await running).toMatchObject({
        status: 'cancelled',
        message: 'Workflow wf-plan-cancel was cancelled: changed my mind',
      });
      expect(runtime.requests.slice(before)).toHaveLength(0);
    } finally {
      llm = slow;
      await delayed.close();
    }
  });
});

describe('query enhancement', () => {
  it('expands the query with the graph neighbours of its entities without an LLM', async () => {
    const answer = (await processAgent(
      deps,
      'query_enhancement_agent',
      task('unpaid invoices'),
      base(),
    )) as Json;
    expect(answer.result).toMatchObject({
      original_query: 'unpaid invoices',
      method: 'retrieval',
      entities: ['Invoices'],
    });
    expect(answer.result.expansions.sort()).toEqual(['accounts payable', 'late fee']);
    expect(answer.result.enhanced_query).toMatch(/^unpaid invoices /);
  });

  it('has the LLM rewrite the query with the neighbours when the tenant has one', async () => {
    await useLlm();
    answers = {
      enhanced_query: () => ({ enhanced_query: 'unpaid invoices late fee', expansions: ['late fee'] }),
    };
    const run = await runOf('unpaid invoices', 'Prefer British spelling.');
    const result = await AGENTS.get('query_enhancement_agent')!.run(deps, run);
    expect(result).toMatchObject({
      enhanced_query: 'unpaid invoices late fee',
      expansions: ['late fee'],
      method: 'llm',
    });
    expect(chats()[0]!.messages[0]!.content).toContain('Prefer British spelling.');
    expect(chats()[0]!.messages[1]!.content).toMatch(/late fee/);
  });

  it('finds nothing in another tenant graph', async () => {
    const answer = (await processAgent(
      deps,
      'query_enhancement_agent',
      task('unpaid invoices', {}, 'rival'),
      base(),
    )) as Json;
    expect(answer.result).toMatchObject({ expansions: [], entities: [], enhanced_query: 'unpaid invoices' });
  });
});

describe('the detailed report', () => {
  it('structures the hits extractively without an LLM, citing real hits', async () => {
    const answer = (await processAgent(
      deps,
      'detailed_report_agent',
      task('late invoices fee'),
      base(),
    )) as Json;
    expect(answer.result.method).toBe('extractive');
    const [section] = answer.result.report.sections;
    expect(section.heading).toBe('handbook.md');
    expect(section.body).toContain('Late invoices carry a fee of two percent.');
    expect(section.citations.every((id: string) => answer.result.sources.includes(id))).toBe(true);
  });

  it('has the LLM write the sections and keeps only citations of real hits', async () => {
    await useLlm();
    let realId = '';
    answers = {
      detailed_report: (request) => {
        realId = /\[([^\]]+)\]/.exec(request.messages[1]!.content.split('\n\n').slice(2).join('\n\n'))![1]!;
        return {
          title: 'Fees',
          sections: [{ heading: 'Late fees', body: 'Two percent.', citations: [realId, 'made-up-id'] }],
        };
      },
    };
    const run = await runOf('late invoices fee', 'Write for lawyers.');
    const result = (await AGENTS.get('detailed_report_agent')!.run(deps, run)) as Json;
    expect(result.method).toBe('llm');
    expect(result.report.sections[0].citations).toEqual([realId]);
    expect(chats()[0]!.messages[0]!.content).toContain('Write for lawyers.');
    expect(formatOf(chats()[0]!).strict).toBe(true);
  });

  it('shows a second tenant none of the first tenant hits', async () => {
    const answer = (await processAgent(
      deps,
      'detailed_report_agent',
      task('invoices fee', {}, 'rival'),
      base(),
    )) as Json;
    expect(JSON.stringify(answer.result)).not.toMatch(/handbook|two percent/);
    expect(answer.result.report.sections.map((s: { heading: string }) => s.heading)).toEqual(['rival.md']);
  });
});

describe('deep research', () => {
  it('answers 503 llm_unavailable without an LLM', async () => {
    expect(
      await failure(processAgent(deps, 'deep_research_agent', task('research invoices'), base())),
    ).toMatchObject({
      status: 503,
      detail: { error: 'llm_unavailable' },
    });
  });

  it('iterates decompose, search, evaluate with a ProgressEvent each, bounded, then synthesizes', async () => {
    await useLlm();
    answers = {
      research_questions: () => ({ questions: ['late invoice fee', 'refund days'] }),
      research_evaluation: () => ({ sufficient: false, gaps: ['history of the fee'] }),
      research_answer: (request) => {
        const id = /\[([^\]]+)\]/.exec(request.messages[1]!.content.split('Hits:')[1]!)![1]!;
        return { answer: 'Late invoices carry two percent.', sources: [id, 'invented'] };
      },
    };
    const answer = (await processAgent(
      deps,
      'deep_research_agent',
      task('research fees', { workflow_id: 'wf-deep' }),
      base(),
    )) as Json;
    const result = answer.result;
    expect(result).toMatchObject({
      workflow_id: 'wf-deep',
      answer: 'Late invoices carry two percent.',
      method: 'llm',
      stopped_by: 'iterations',
    });
    expect(result.iterations).toHaveLength(2);
    expect(result.sources).toHaveLength(1);
    expect(result.sources[0]).not.toBe('invented');
    const events = await deps.events.read('wf-deep', 0, 200);
    const progress = events.filter((e) => e.type === 'progress');
    expect(progress.map((e: Json) => `${e.current}/${e.total} ${e.step}`)).toEqual([
      '1/2 decompose',
      '1/2 search',
      '1/2 evaluate',
      '2/2 decompose',
      '2/2 search',
      '2/2 evaluate',
    ]);
    const phases = events.filter((e: Json) =>
      [
        'decompose',
        'search',
        'evaluate',
        'synthesize',
        'rlm_synthesis',
        'rlm_start',
        'rlm_complete',
      ].includes(e.phase),
    );
    // Every phase of document 3's deep research, then the recursive synthesis module's events on the same task.
    expect(phases.map((e: Json) => e.phase)).toEqual([
      'decompose',
      'search',
      'evaluate',
      'decompose',
      'search',
      'evaluate',
      'synthesize',
      'rlm_synthesis',
      'rlm_start',
      'rlm_complete',
    ]);
    expect(result.synthesis).toEqual({ batches: 1, rlm_iterations: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'complete' });
    expect(chats()[1]!.messages[1]!.content).toBeDefined();
  });

  it('answers hits beyond one synthesis call in batches and merges them recursively, a ProgressEvent an iteration', async () => {
    await createTenant(domains.tenancy, { tenant_id: 'scholar', created_by: 'test' });
    const topics = ['fees', 'refunds', 'invoices', 'audits', 'ledgers', 'payroll'];
    await indexDocuments(domains.content, {
      tenant: 'scholar',
      profile: 'document_text_semantic',
      sourceDocId: 'policy.md',
      documents: topics.map((topic) => ({
        fields: { title: 'policy.md', text: `Policy on ${topic} of the firm. `.repeat(36) },
      })),
    });
    await useLlm('scholar:scholar');
    const merges: string[] = [];
    answers = {
      research_questions: () => ({ questions: ['policy of the firm'] }),
      research_evaluation: () => ({ sufficient: true, gaps: [] }),
      research_answer: (request) => {
        const ids = [...request.messages[1]!.content.matchAll(/^\[([^\]]+)\]/gm)].map((m) => m[1]!);
        return { answer: `part over ${ids.length} hits`, sources: ids };
      },
      research_merge: (request) => {
        merges.push(request.messages[1]!.content);
        const parts = request.messages[1]!.content.split('[partial ').length - 1;
        const ids = [...request.messages[1]!.content.matchAll(/\(hits ([^)]*)\)/g)].flatMap((m) =>
          m[1]!.split(', '),
        );
        return { answer: `merged ${parts}`, sources: [...ids, 'invented'] };
      },
    };
    const settings = parseAgentsEnv({
      TESSERA_DEEP_RESEARCH_MAX_ITERATIONS: '1',
      TESSERA_DEEP_RESEARCH_SYNTHESIS_CHARS: '2000',
    });
    const answer = (await processAgent(
      { ...deps, settings },
      'deep_research_agent',
      task('research the policy', { workflow_id: 'wf-rlm' }, 'scholar'),
      base(),
    )) as Json;
    const result = answer.result;
    // Five hits (the question's top five) of some 1,150 characters: one a batch within 2,000 characters.
    expect(result.synthesis).toEqual({ batches: 5, rlm_iterations: 2 });
    // Five partial answers: four merged and one carried over, then those two merged.
    expect(merges).toHaveLength(2);
    expect(result.answer).toBe('merged 2');
    expect(result.sources).toHaveLength(5);
    expect(result.sources).not.toContain('invented');
    const events = await deps.events.read('wf-rlm', 0, 200);
    const rlm = events.filter(
      (e: Json) =>
        ['rlm_synthesis', 'rlm_start', 'rlm_complete'].includes(e.phase) ||
        (e.type === 'progress' && e.step === 'rlm_synthesis'),
    );
    expect(rlm.map((e: Json) => e.phase ?? `${e.current}/${e.total} ${e.details.partials}`)).toEqual([
      'rlm_synthesis',
      'rlm_start',
      '1/2 2',
      '2/2 1',
      'rlm_complete',
    ]);
  });

  it('stops when the evaluation says the hits suffice, and at the token budget', async () => {
    await useLlm();
    answers = {
      research_questions: () => ({ questions: ['late invoice fee'] }),
      research_evaluation: () => ({ sufficient: true, gaps: [] }),
      research_answer: () => ({ answer: 'Two percent.', sources: [] }),
    };
    let result = ((await processAgent(deps, 'deep_research_agent', task('fees'), base())) as Json).result;
    expect(result).toMatchObject({ stopped_by: 'sufficient' });
    expect(result.iterations).toHaveLength(1);

    answers.research_evaluation = () => ({ sufficient: false, gaps: ['more'] });
    const tight = {
      ...deps,
      settings: parseAgentsEnv({
        TESSERA_DEEP_RESEARCH_MAX_TOKENS: '1000',
        TESSERA_DEEP_RESEARCH_MAX_ITERATIONS: '5',
      }),
    };
    result = ((await processAgent(tight, 'deep_research_agent', task('fees '.repeat(800)), base())) as Json)
      .result;
    expect(result.stopped_by).toBe('tokens');
    expect(result.iterations).toHaveLength(1);
  });
});

describe('the coding agent', () => {
  it('answers 503 without an LLM, files through the LLM, and refuses paths that escape', async () => {
    expect(await failure(processAgent(deps, 'coding_agent', task('write a parser'), base()))).toMatchObject({
      status: 503,
      detail: { error: 'llm_unavailable' },
    });
    await useLlm();
    answers = {
      code_files: () => ({
        files: [{ path: 'src/parse.ts', language: 'typescript', content: 'export const parse = () => 1;' }],
        explanation: 'A parser.',
      }),
    };
    const run = await runOf('write a parser', 'Use tabs.');
    expect(await AGENTS.get('coding_agent')!.run(deps, run)).toEqual({
      files: [{ path: 'src/parse.ts', language: 'typescript', content: 'export const parse = () => 1;' }],
      explanation: 'A parser.',
      method: 'llm',
    });
    expect(chats()[0]!.messages[0]!.content).toContain('Use tabs.');
    for (const bad of ['/etc/passwd', '../up.ts', 'a/../../b', 'C:\\x', '~/.ssh/id']) {
      answers.code_files = () => ({ files: [{ path: bad, language: 'text', content: '' }], explanation: '' });
      expect(await failure(processAgent(deps, 'coding_agent', task('write'), base()))).toMatchObject({
        status: 502,
        message: expect.stringMatching(/escapes the project/),
      });
    }
    expect(unsafePath('src/a/b.ts')).toBeUndefined();
    answers.code_files = () => ({ files: 'none' });
    expect(await failure(processAgent(deps, 'coding_agent', task('write'), base()))).toMatchObject({
      status: 502,
      message: expect.stringMatching(/does not match the code files schema/),
    });
  });

  it('takes a huge query without crashing', async () => {
    await useLlm();
    answers = {
      code_files: (request) => ({ files: [], explanation: `${request.messages[1]!.content.length}` }),
    };
    const answer = (await processAgent(deps, 'coding_agent', task('x'.repeat(20_000)), base())) as Json;
    expect(Number(answer.result.explanation)).toBeGreaterThan(20_000);
  });
});

describe('the summarizer', () => {
  it('puts the tenant instructions in its system prompt', async () => {
    await useLlm();
    answers = { summary: () => ({ summary: 'Short.' }) };
    const run = await runOf('invoices', 'Answer in one line.');
    expect(await AGENTS.get('summarizer_agent')!.run(deps, run)).toMatchObject({
      summary: 'Short.',
      method: 'llm',
    });
    expect(chats()[0]!.messages[0]!.content).toContain('Answer in one line.');
  });
});

describe('image search photos', () => {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );

  it('refuses bad base64, a non-image and a non-image mime with 422', () => {
    expect(() => photoBytes('not base64!!', undefined)).toThrow(HttpError);
    expect(() => photoBytes('', undefined)).toThrow(/not valid base64/);
    expect(() => photoBytes(Buffer.from('hello world').toString('base64'), undefined)).toThrow(/not a PNG/);
    expect(() => photoBytes(png.toString('base64'), 'application/pdf')).toThrow(/image type/);
    expect(photoBytes(`data:image/png;base64,${png.toString('base64')}`, 'image/png').equals(png)).toBe(true);
  });

  it('searches the text tesseract reads from the photo with the query', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'photo-'));
    const ocr = mediaOcr();
    try {
      const photo = await readFile(await textImage(dir, 'note.png', ['Late invoices carry', 'a fee']));
      const answer = (await processAgent(
        { ...deps, ocr },
        'image_search_agent',
        task('what does this say', { media_content_b64: photo.toString('base64'), media_mime: 'image/png' }),
        base(),
      )) as Json;
      expect(answer.result.ocr_text).toMatch(/Late invoices carry\s+a fee/);
      // A PNG signature with nothing readable behind it: the photo cannot be read, 422.
      const broken = Buffer.concat([png.subarray(0, 16), Buffer.alloc(64)]);
      const error = await failure(
        processAgent(
          { ...deps, ocr },
          'image_search_agent',
          task('q', { media_content_b64: broken.toString('base64') }),
          base(),
        ),
      );
      expect(error).toMatchObject({ status: 422 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the long-run url', () => {
  it('is the url of the orchestrator and deep research when the deployment serves them apart', () => {
    const agents = deps.registry.resolve(
      { deep_research_agent: { url: 'http://research:8009' } },
      'https://api.example',
      'https://long.lambda-url.example/',
    );
    const url = (name: string) => agents.find((agent) => agent.name === name)!.url;
    expect(url('orchestrator_agent')).toBe('https://long.lambda-url.example');
    expect(url('deep_research_agent')).toBe('http://research:8009');
    expect(url('search_agent')).toBe('https://api.example');
    expect(deps.registry.resolve({}, 'http://127.0.0.1:1').every((a) => a.url === 'http://127.0.0.1:1')).toBe(
      true,
    );
  });
});

describe('endpoint health', () => {
  it('probes each url once, healthy when its /health answers 2xx, unhealthy otherwise, and caches', async () => {
    const probe = new HealthProbe({ timeoutMs: 500, ttlMs: 60_000 });
    const agents = await registeredAgents(deps, runtime.url);
    const dead = { ...agents[0]!, url: 'http://127.0.0.1:9' };
    const annotated = await probe.annotate([...agents, dead]);
    expect(annotated.slice(0, -1).every((a) => a.health_status === 'healthy')).toBe(true);
    expect(annotated.at(-1)!.health_status).toBe('unhealthy');
    const before = runtime.requests.filter((r) => r.url === '/health').length;
    expect(before).toBe(1);
    await probe.annotate(agents);
    expect(runtime.requests.filter((r) => r.url === '/health').length).toBe(1);
  });
});

describe('a streamed answer', () => {
  /** Dispatch with an `onText` sink: the deltas it got, in order. */
  async function streamed(name: string, query: string, context: Record<string, unknown> = {}) {
    const deltas: string[] = [];
    const answer = (await processAgent(deps, name, task(query, context), {
      ...base(),
      onText: (delta) => void deltas.push(delta),
    })) as Json;
    return { deltas, result: answer.result };
  }
  /** The response formats of the calls made with `stream: true`, and of the others. */
  const calls = () => ({
    streamed: chats()
      .filter((chat) => chat.stream === true)
      .map((chat) => formatOf(chat).name),
    whole: chats()
      .filter((chat) => chat.stream !== true)
      .map((chat) => formatOf(chat).name),
  });

  it("streams the summarizer's summary as the LLM writes it, the result the same as without", async () => {
    await useLlm();
    const summary = 'Late invoices carry a fee of "two percent"\nand are paid within thirty days. ✓';
    answers = { summary: () => ({ summary }) };
    const { deltas, result } = await streamed('summarizer_agent', 'late invoices');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(summary);
    expect(result).toMatchObject({ summary, method: 'llm' });
    expect(calls()).toEqual({ streamed: ['summary'], whole: [] });

    llm.requests.length = 0;
    const whole = (await processAgent(deps, 'summarizer_agent', task('late invoices'), base())) as Json;
    expect(whole.result).toEqual(result);
    expect(calls()).toEqual({ streamed: [], whole: ['summary'] });
  });

  it('streams the answer of the agent the gateway routes to, which runs in process', async () => {
    await useLlm();
    answers = { summary: () => ({ summary: 'Invoices: thirty days, then a fee.' }) };
    const { deltas, result } = await streamed('gateway_agent', 'summarize the invoice rules');
    expect(result.routed_to).toBe('summarizer_agent');
    expect(deltas.join('')).toBe('Invoices: thirty days, then a fee.');
    expect(result.result.summary).toBe(deltas.join(''));
    expect(calls()).toEqual({ streamed: ['summary'], whole: [] });
  });

  it("streams the orchestrator's final answer only: not its plan, nor its sub-agents called over HTTP", async () => {
    await useLlm();
    answers = {
      orchestration_plan: () => ({
        steps: [
          { agent_name: 'search_agent', query: 'late invoices fee', depends_on: [] },
          { agent_name: 'summarizer_agent', query: 'summarize the fees', depends_on: [0] },
        ],
      }),
      summary: () => ({ summary: 'A step summary nobody streams.' }),
      orchestration_answer: () => ({ final_answer: 'Late invoices carry two percent, the steps say.' }),
    };
    const { deltas, result } = await streamed('orchestrator_agent', 'what do late invoices cost');
    expect(deltas.join('')).toBe('Late invoices carry two percent, the steps say.');
    expect(result.orchestration_result.final_answer).toBe(deltas.join(''));
    expect(calls()).toEqual({ streamed: ['orchestration_answer'], whole: ['orchestration_plan', 'summary'] });
  });

  it("streams deep research's synthesis and the coding agent's explanation", async () => {
    await useLlm();
    answers = {
      research_questions: () => ({ questions: ['late invoice fee'] }),
      research_evaluation: () => ({ sufficient: true, gaps: [] }),
      research_answer: () => ({ answer: 'Two percent, per the handbook.', sources: [] }),
    };
    const research = await streamed('deep_research_agent', 'fees');
    expect(research.deltas.join('')).toBe('Two percent, per the handbook.');
    expect(research.result.answer).toBe('Two percent, per the handbook.');
    expect(calls()).toEqual({
      streamed: ['research_answer'],
      whole: ['research_questions', 'research_evaluation'],
    });

    llm.requests.length = 0;
    answers = {
      code_files: () => ({
        files: [{ path: 'src/parse.ts', language: 'typescript', content: 'export const parse = () => "x";' }],
        explanation: 'A parser that answers "x".',
      }),
    };
    const coding = await streamed('coding_agent', 'write a parser');
    expect(coding.deltas.join('')).toBe('A parser that answers "x".');
    expect(coding.result.files[0].content).toBe('export const parse = () => "x";');
    expect(calls()).toEqual({ streamed: ['code_files'], whole: [] });
  });

  it('streams nothing for an answer no LLM writes (extractive, retrieval)', async () => {
    const { deltas, result } = await streamed('summarizer_agent', 'late invoices');
    expect(result.method).toBe('extractive');
    expect(deltas).toEqual([]);
    expect((await streamed('search_agent', 'late invoices')).deltas).toEqual([]);
    expect(chats()).toEqual([]);
  });
});
