/**
 * Agents through the local runtime: the registry routes, dispatch to each agent this build has with its
 * result fields, bad input, workflow runs on the task events (stream, 409, cancel), the gateway following the
 * tenant's routing record, and the summarizer through an OpenAI-compatible server on loopback.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openAIChat, startServer, type TestServer } from '@tessera/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
let rt: RuntimeProcess;
let llm: TestServer;
let llmDelayMs = 0;
/** Answers of the fake LLM by response format name, beside the summarizer's. */
let llmAnswers: Record<string, (user: string) => unknown> = {};

const chunks = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 40);

const process_ = (agent: string, query: string, context: Record<string, unknown> = {}) =>
  call(rt.url, 'POST', `/agents/${agent}/process`, { query, context: { tenant_id: 'acme', ...context } });

beforeAll(async () => {
  llm = await startServer(
    openAIChat(async (request) => {
      if (llmDelayMs) await new Promise((resolve) => setTimeout(resolve, llmDelayMs));
      const passages = request.messages.at(-1)!.content;
      const other = llmAnswers[request.response_format!.json_schema!.name];
      if (other) return { content: other(passages) };
      return { content: { summary: `LLM summary of ${passages.split('\n\n[').length - 1} passages` } };
    }),
  );
  rt = await spawnRuntime();
  for (const tenant of ['acme', 'rival']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant })).status).toBe(201);
  }
  process.env.TESSERA_DATA_DIR = rt.dataDir;
  process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const { content, indexDocuments } = await import('@tessera/content');
  const feed = async (tenant: string, source: string, text: string) =>
    indexDocuments(content(), {
      tenant,
      profile: 'document_text_semantic',
      sourceDocId: source,
      documents: chunks(text).map((paragraph) => ({ fields: { title: source, text: paragraph } })),
    });
  await feed('acme', 'lancedb-notes.md', readFileSync(path.join(root, 'docs/lancedb-notes.md'), 'utf8'));
  await feed(
    'rival',
    'rival-notes.md',
    'Rival keeps its invoices in a shoebox under the desk of the accountant.',
  );
}, 120_000);

afterAll(async () => {
  await rt?.stop();
  await llm?.close();
});

describe('the agent registry (integration)', () => {
  it('lists the 23 agents, answers cards and capability lookups', async () => {
    const list = await call(rt.url, 'GET', '/agents');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(23);
    const search = list.body.agents.find((a: { name: string }) => a.name === 'search_agent');
    // The runtime's own url answers its /health: every agent served here is healthy.
    expect(search).toMatchObject({ url: rt.url, enabled: true, available: true, health_status: 'healthy' });
    expect(list.body.agents.find((a: { name: string }) => a.name === 'kg_traversal_agent').enabled).toBe(
      false,
    );

    const card = await call(rt.url, 'GET', '/agents/summarizer_agent/card');
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({
      name: 'summarizer_agent',
      url: `${rt.url}/agents/summarizer_agent/process`,
      process_endpoint: '/agents/summarizer_agent/process',
      timeout: 30,
      defaultOutputModes: ['application/json'],
      health_status: 'healthy',
    });
    expect((await call(rt.url, 'GET', '/agents/nobody/card')).body).toEqual({
      detail: "Agent 'nobody' not found",
    });

    const found = await call(rt.url, 'GET', '/agents/by-capability/routing');
    expect(found.body).toEqual({
      capability: 'routing',
      count: 1,
      agents: [
        {
          name: 'gateway_agent',
          url: rt.url,
          capabilities: ['routing', 'query_classification'],
          health_status: 'healthy',
        },
      ],
    });
  });

  it('takes overrides from the system configuration', async () => {
    await call(rt.url, 'PUT', '/admin/config/system', { agents: { summarizer_agent: { enabled: false } } });
    const refused = await process_('summarizer_agent', 'lancedb');
    expect(refused).toMatchObject({ status: 409, body: { detail: "Agent 'summarizer_agent' is disabled" } });
    await call(rt.url, 'PUT', '/admin/config/system', {});
    expect(
      (await call(rt.url, 'PUT', '/admin/config/system', { agents: { bogus_agent: { enabled: false } } }))
        .status,
    ).toBe(422);
  });
});

describe('POST /agents/{name}/process (integration)', () => {
  it('searches the tenant content with the profile it selects', async () => {
    const { status, body } = await process_('search_agent', 'merge insert upserts');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'completed',
      agent: 'search_agent',
      result: {
        profile: 'document_text_semantic',
        profile_selected_by: 'profile_selection_agent',
        method: 'retrieval',
      },
    });
    expect(body.result.count).toBeGreaterThan(0);
    expect(
      body.result.results.every((hit: { source_doc_id: string }) => hit.source_doc_id === 'lancedb-notes.md'),
    ).toBe(true);
    const rival = await call(rt.url, 'POST', '/agents/search_agent/process', {
      query: 'invoices',
      context: { tenant_id: 'rival' },
    });
    expect(rival.body.result.results.map((hit: { source_doc_id: string }) => hit.source_doc_id)).toEqual([
      'rival-notes.md',
    ]);
  });

  it('answers the fields of profile selection, entities, text analysis, document and summarizer', async () => {
    const selection = await process_('profile_selection_agent', 'find the pdf about schemas');
    expect(selection.body.result).toMatchObject({
      selected_profile: 'document_text_semantic',
      modality: 'document',
    });
    const entities = await process_('entity_extraction_agent', 'Ada Lovelace met Charles Babbage in London');
    expect(entities.body.result).toMatchObject({ entity_count: 3, dominant_types: ['Person', 'Location'] });
    const analysis = await process_(
      'text_analysis_agent',
      'The tenant schema holds the documents. It is deployed once.',
    );
    expect(analysis.body.result).toMatchObject({
      language: 'en',
      sentences: 2,
      words: 10,
      method: 'extractive',
    });
    const document = await process_('document_agent', 'merge insert');
    expect(document.body.result.modality).toBe('document');
    expect(document.body.result.answer).toMatch(/merge/i);
    const summary = await process_('summarizer_agent', 'merge insert');
    expect(summary.body.result.method).toBe('extractive');
    expect(summary.body.result.sources.length).toBeGreaterThan(0);
  });

  it('refuses bad input with clear answers', async () => {
    expect((await process_('nobody', 'q')).status).toBe(404);
    expect((await process_('kg_traversal_agent', 'q')).body).toEqual({
      detail: "Agent 'kg_traversal_agent' is disabled",
    });
    // The audit explanation takes a workflow id: a sentence is none, and an unknown id is not found.
    const notAnId = await process_('audit_explanation_agent', 'explain the run');
    expect(notAnId.status).toBe(422);
    expect(notAnId.body.detail[0].loc).toEqual(['body', 'context', 'workflow_id']);
    const missing = await process_('audit_explanation_agent', 'wf_none');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Workflow 'wf_none' not found" });
    expect(
      (await call(rt.url, 'POST', '/agents/search_agent/process', { query: 'q', context: {} })).status,
    ).toBe(422);
    expect((await process_('search_agent', 'q', { tenant_id: 'ghost' })).body).toEqual({
      detail: "Tenant 'ghost:ghost' not registered.",
    });
    expect((await process_('search_agent', '   ')).status).toBe(422);
    expect((await process_('search_agent', 'x'.repeat(100_000))).status).toBe(422);
    expect((await process_('search_agent', 'q', { strategy: 'best' })).status).toBe(400);
    expect(
      (await process_('image_search_agent', 'find similar images', { media_content_b64: 'aGk=' })).status,
    ).toBe(422);
  });
});

describe('the gateway (integration)', () => {
  it('routes a simple query to search and a complex one to the orchestrator, falling back while the tenant has no LLM', async () => {
    const simple = await process_('gateway_agent', 'find merge insert');
    expect(simple.body.result).toMatchObject({ classification: 'simple', routed_to: 'search_agent' });
    expect(simple.body.result.result.count).toBeGreaterThan(0);
    expect(simple.body.result.elapsed_ms).toBeLessThan(100);
    const complex = await process_(
      'gateway_agent',
      'Compare the indexing strategies over time and explain why the binary vectors changed the ranking',
    );
    expect(complex.body.result).toMatchObject({
      classification: 'complex',
      routed_to: 'search_agent',
      fallback: { from: 'orchestrator_agent' },
    });
  });

  it('follows the thresholds of the tenant routing record', async () => {
    const query = 'the merge insert of the tables';
    const before = await process_('gateway_agent', query, { classify_only: true });
    expect(before.body.result).toMatchObject({
      classification: 'simple',
      routed_to: 'search_agent',
      result: null,
    });
    await call(rt.url, 'PUT', '/admin/tenants/acme/config/routing', { fast_path_confidence_threshold: 0.95 });
    const after = await process_('gateway_agent', query, { classify_only: true });
    expect(after.body.result).toMatchObject({ classification: 'simple', routed_to: 'orchestrator_agent' });
    await call(rt.url, 'PUT', '/admin/tenants/acme/config/routing', {});
  });
});

describe('workflow runs (integration)', () => {
  const events = async (id: string) => {
    const response = await fetch(`${rt.url}/events/workflows/${id}`);
    const text = await response.text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
  };

  it('reports a run with a workflow_id on its task and refuses the id a second time', async () => {
    const id = `wf_${Date.now()}`;
    const first = await process_('search_agent', 'merge insert', { workflow_id: id });
    expect(first.status).toBe(200);
    const stream = await events(id);
    expect(stream.map((e) => e.phase ?? e.type)).toEqual([
      'connected',
      'started',
      'select_profile',
      'retrieval',
      'complete',
      'end',
    ]);
    // The stream of an ended task closes with its end frame, after the last event.
    expect(stream.at(-2)).toMatchObject({
      result: { status: 'completed' },
      summary: 'search_agent finished with status completed',
    });
    expect((await process_('search_agent', 'again', { workflow_id: id })).status).toBe(409);
  });

  it('summarizes through the tenant LLM and stops a run cancelled meanwhile', async () => {
    await call(rt.url, 'PUT', '/admin/tenants/acme/config/llm', {
      model: 'openai/summarizer',
      api_base: `${llm.url}/v1`,
    });
    const generated = await process_('summarizer_agent', 'merge insert');
    expect(generated.body.result).toMatchObject({
      method: 'llm',
      summary: expect.stringMatching(/^LLM summary of \d+ passages$/),
    });

    llmDelayMs = 1500;
    const id = `wf_cancel_${Date.now()}`;
    const running = process_('summarizer_agent', 'merge insert', { workflow_id: id });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cancel = await call(rt.url, 'POST', `/events/workflows/${id}/cancel`, { reason: 'enough' });
    expect(cancel.status).toBe(200);
    expect((await running).body).toEqual({
      status: 'cancelled',
      agent: 'summarizer_agent',
      workflow_id: id,
      message: `Workflow ${id} was cancelled: enough`,
    });
    expect((await events(id)).at(-2)).toMatchObject({
      type: 'status',
      state: 'cancelled',
      message: 'enough',
    });
    llmDelayMs = 0;
    await call(rt.url, 'PUT', '/admin/tenants/acme/config/llm', {
      model: 'openai/none',
      api_base: 'http://127.0.0.1:9/v1',
      request_timeout: 1,
    });
    expect((await process_('summarizer_agent', 'merge insert')).status).toBe(502);
  }, 30_000);
});

describe('orchestration through the runtime (integration)', () => {
  const streamOf = async (id: string) => {
    const text = await (await fetch(`${rt.url}/events/workflows/${id}`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
  };
  let proxy: TestServer;
  let proxyDelayMs = 0;

  beforeAll(async () => {
    // search_agent's url points at this loopback proxy, which forwards to the runtime: the orchestrator's
    // calls of it are seen here, those of the other agents go to the runtime's own url.
    proxy = await startServer(async (seen) => {
      if (proxyDelayMs) await new Promise((resolve) => setTimeout(resolve, proxyDelayMs));
      const answer = await fetch(`${rt.url}${seen.url}`, {
        method: seen.method,
        headers: { 'content-type': 'application/json' },
        body: seen.method === 'POST' ? JSON.stringify(seen.body) : undefined,
      });
      return { status: answer.status, json: await answer.json() };
    });
    await call(rt.url, 'PUT', '/admin/config/system', { agents: { search_agent: { url: proxy.url } } });
    for (const tenant of ['acme', 'rival']) {
      await call(rt.url, 'PUT', `/admin/tenants/${tenant}/config/llm`, {
        model: 'openai/planner',
        api_base: `${llm.url}/v1`,
      });
    }
    llmAnswers = {
      orchestration_plan: () => ({
        steps: [
          { agent_name: 'search_agent', query: 'merge insert invoices', depends_on: [] },
          { agent_name: 'document_agent', query: 'merge insert upserts', depends_on: [] },
          { agent_name: 'summarizer_agent', query: 'summarize', depends_on: [0, 1] },
          { agent_name: 'nonexistent_agent', query: 'x', depends_on: [] },
        ],
      }),
      orchestration_answer: (user) => ({ final_answer: `from ${user.split('[step ').length - 1} steps` }),
    };
  });

  afterAll(async () => {
    llmAnswers = {};
    await call(rt.url, 'PUT', '/admin/config/system', {});
    for (const tenant of ['acme', 'rival']) {
      await call(rt.url, 'PUT', `/admin/tenants/${tenant}/config/llm`, { model: 'openai/none' });
    }
    await proxy?.close();
  });

  it('plans, calls the sub-agents over HTTP at their urls and streams every phase', async () => {
    const id = `wf_orch_${Date.now()}`;
    const answer = await process_('orchestrator_agent', 'how does merge insert upsert rows', {
      workflow_id: id,
    });
    expect(answer.status).toBe(200);
    const result = answer.body.result.orchestration_result;
    expect(result).toMatchObject({
      workflow_id: id,
      plan: { parallel_groups: [[0, 1], [2]] },
      final_answer: 'from 3 steps',
      failed_steps: [],
      dropped_steps: [{ agent_name: 'nonexistent_agent' }],
    });
    expect(result.step_results.map((s: { status: string }) => s.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    const proxied = proxy.requests.filter((r) => r.url === '/agents/search_agent/process');
    expect(proxied).toHaveLength(1);
    expect(proxied[0]!.body).toMatchObject({
      query: 'merge insert invoices',
      context: { tenant_id: 'acme' },
    });
    const phases = (await streamOf(id)).map((e) => e.phase ?? e.type);
    expect(phases.slice(0, 5)).toEqual(['connected', 'started', 'memory_context', 'planning', 'execution']);
    expect(phases.filter((p) => p === 'retrieval_iteration')).toHaveLength(2);
    expect(phases.filter((p) => p === 'executing')).toHaveLength(3);
    expect(phases.slice(-4)).toEqual(['aggregating', 'complete', 'complete', 'end']);
  }, 30_000);

  /** A complex query to the gateway, and the workflow tasks of the tenant that appeared while it runs. */
  async function routedOrchestration() {
    const listed = async () =>
      (await call(rt.url, 'GET', '/events/queues?tenant_id=acme')).body.queues.map(
        (q: { task_id: string }) => q.task_id,
      ) as string[];
    const before = new Set(await listed());
    const running = process_(
      'gateway_agent',
      'Compare the indexing strategies over time and explain why the binary vectors changed the ranking',
    );
    let live: string[] = [];
    for (let i = 0; i < 100 && live.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      live = (await listed()).filter((id) => !before.has(id));
    }
    return { running, live };
  }

  it('runs the orchestration a gateway routes as a workflow task of its own, streamed while it runs', async () => {
    proxyDelayMs = 1000;
    try {
      const { running, live } = await routedOrchestration();
      // The orchestration's task is listed while the gateway's request still runs.
      expect(live).toHaveLength(1);
      const answer = await running;
      expect(answer.status).toBe(200);
      const gateway = answer.body.result;
      expect(gateway).toMatchObject({ classification: 'complex', routed_to: 'orchestrator_agent' });
      expect(gateway.workflow_id).toMatch(/^workflow_[0-9a-f]{16}$/);
      expect(gateway.workflow_id).toBe(live[0]);
      expect(gateway.result.orchestration_result.workflow_id).toBe(gateway.workflow_id);
      const phases = (await streamOf(gateway.workflow_id)).map((e) => e.phase ?? e.type);
      expect(phases.slice(0, 5)).toEqual(['connected', 'started', 'memory_context', 'planning', 'execution']);
      expect(phases.slice(-4)).toEqual(['aggregating', 'complete', 'complete', 'end']);
    } finally {
      proxyDelayMs = 0;
    }
  }, 60_000);

  it('answers a routed orchestration cancelled on its own task with the cancelled shape, naming it', async () => {
    proxyDelayMs = 1500;
    try {
      const { running, live } = await routedOrchestration();
      const id = live[0]!;
      expect(
        (await call(rt.url, 'POST', `/events/workflows/${id}/cancel`, { reason: 'not now' })).status,
      ).toBe(200);
      const answer = await running;
      expect(answer.status).toBe(200);
      expect(answer.body.result).toMatchObject({
        routed_to: 'orchestrator_agent',
        workflow_id: id,
        result: {
          status: 'cancelled',
          agent: 'orchestrator_agent',
          workflow_id: id,
          message: `Workflow ${id} was cancelled: not now`,
        },
      });
      expect((await streamOf(id)).at(-2)).toMatchObject({
        type: 'status',
        state: 'cancelled',
        message: 'not now',
      });
    } finally {
      proxyDelayMs = 0;
    }
  }, 60_000);

  it('ends cancelled with the cancelled shape when cancelled during execution', async () => {
    proxyDelayMs = 1500;
    const id = `wf_orch_cancel_${Date.now()}`;
    try {
      const running = process_('orchestrator_agent', 'merge insert', { workflow_id: id });
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(
        (await call(rt.url, 'POST', `/events/workflows/${id}/cancel`, { reason: 'stop it' })).status,
      ).toBe(200);
      expect((await running).body).toEqual({
        status: 'cancelled',
        agent: 'orchestrator_agent',
        workflow_id: id,
        message: `Workflow ${id} was cancelled: stop it`,
      });
      const stream = await streamOf(id);
      expect(stream.at(-2)).toMatchObject({ type: 'status', state: 'cancelled', message: 'stop it' });
      expect(stream.map((e) => e.phase)).not.toContain('aggregating');
    } finally {
      proxyDelayMs = 0;
    }
  }, 30_000);

  it("never shows a second tenant the first tenant's hits", async () => {
    const answer = await call(rt.url, 'POST', '/agents/orchestrator_agent/process', {
      query: 'merge insert invoices',
      context: { tenant_id: 'rival' },
    });
    expect(answer.status).toBe(200);
    const text = JSON.stringify(answer.body.result.orchestration_result.step_results);
    expect(text).not.toContain('lancedb-notes.md');
    expect(text).toContain('rival-notes.md');
  }, 30_000);

  it('answers 503 llm_unavailable without an LLM', async () => {
    await call(rt.url, 'PUT', '/admin/tenants/rival/config/llm', { model: 'openai/none' });
    const answer = await call(rt.url, 'POST', '/agents/orchestrator_agent/process', {
      query: 'plan this',
      context: { tenant_id: 'rival' },
    });
    expect(answer).toMatchObject({ status: 503, body: { detail: { error: 'llm_unavailable' } } });
  });
});
