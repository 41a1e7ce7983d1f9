import { Config } from '@tessera/api';
import { putSystemConfig, putTenantConfig } from '@tessera/config';
import { indexDocuments } from '@tessera/content';
import type { TaskEvents } from '@tessera/events';
import { createTenant, requireTenant } from '@tessera/tenancy';
import { failure, openAIChat, useServers } from '@tessera/testing';
import { fakeDomains } from '@tessera/testing/fakes';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AgentRegistry,
  type AgentsDeps,
  agentsBaseUrl,
  byCapability,
  card,
  listing,
  parseAgentsEnv,
  parseRegistry,
  processAgent,
  registeredAgents,
} from '../src/index';
import { fakeAgentsDeps } from './support';

const domains = fakeDomains();
const deps: AgentsDeps = fakeAgentsDeps(domains);
const base = { baseUrl: 'http://localhost:28000' };
const task = (query: string, context: Record<string, unknown> = {}) => ({
  query,
  context: { tenant_id: 'acme', ...context },
});
const servers = useServers();

beforeAll(async () => {
  await createTenant(domains.tenancy, { tenant_id: 'acme', created_by: 'test' });
  await indexDocuments(domains.content, {
    tenant: 'acme',
    profile: 'document_text_semantic',
    sourceDocId: 'handbook.md',
    documents: [
      {
        fields: {
          title: 'handbook.md',
          text: 'Tessera indexes documents per tenant. Each tenant has its own schemas.',
        },
      },
      {
        fields: {
          title: 'handbook.md',
          text: 'Invoices are paid within thirty days. Late invoices carry a fee of two percent.',
        },
      },
      {
        fields: {
          title: 'handbook.md',
          text: 'The search agent ranks chunks with BM25 and late interaction.',
        },
      },
    ],
  });
});

describe('the registry', () => {
  it('holds the 23 agents of document 3 with their defaults', async () => {
    const agents = await registeredAgents(deps, base.baseUrl);
    expect(agents).toHaveLength(23);
    const disabled = agents.filter((a) => !a.enabled).map((a) => a.name);
    expect(disabled.sort()).toEqual(
      [
        'citation_tracing_agent',
        'contradiction_reconciliation_agent',
        'cross_tenant_comparison_agent',
        'federated_query_agent',
        'kg_traversal_agent',
        'knowledge_summarization_agent',
        'multi_document_synthesis_agent',
        'temporal_reasoning_agent',
      ].sort(),
    );
    expect(
      agents.every((a) => a.url === base.baseUrl && a.timeout === 30 && a.health_status === 'unknown'),
    ).toBe(true);
    expect(listing(agents).count).toBe(23);
    expect(byCapability(agents, 'summarization').agents.map((a) => a.name)).toEqual(['summarizer_agent']);
    expect(byCapability(agents, 'nothing')).toEqual({ capability: 'nothing', count: 0, agents: [] });
  });

  it("gives the agents the HTTP API's URL when the deployment sets one, else the URL the request reached", async () => {
    expect(agentsBaseUrl(parseAgentsEnv({}), 'http://localhost:28000')).toBe('http://localhost:28000');
    const api = 'https://abc123.execute-api.eu-west-1.amazonaws.com';
    const settings = parseAgentsEnv({
      TESSERA_API_URL: `${api}/`,
      TESSERA_AGENT_LONG_RUN_URL: 'https://long.lambda-url.eu-west-1.on.aws/',
    });
    // A chat stream's request reached its Function URL: that host is not where the agents answer.
    const streamHost = 'https://chat.lambda-url.eu-west-1.on.aws';
    expect(agentsBaseUrl(settings, streamHost)).toBe(api);
    const agents = await registeredAgents({ ...deps, settings }, streamHost);
    const urlOf = (name: string) => agents.find((agent) => agent.name === name)!.url;
    expect(urlOf('search_agent')).toBe(api);
    expect(urlOf('summarizer_agent')).toBe(api);
    // The long-run agents keep the long-run function's URL.
    expect(urlOf('orchestrator_agent')).toBe('https://long.lambda-url.eu-west-1.on.aws');
    expect(agents.some((agent) => agent.url.startsWith(streamHost))).toBe(false);
  });

  it('refuses a registry file with an unknown or a missing agent', () => {
    const entry = { port: 1, enabled: true, capabilities: ['x'], description: 'x' };
    expect(() => parseRegistry({ agents: { bogus_agent: entry } }, 'f')).toThrow(
      /unknown agents bogus_agent/,
    );
    expect(() => parseRegistry({ agents: { search_agent: entry } }, 'f')).toThrow(
      /missing agents text_analysis_agent/,
    );
  });

  it('applies the system configuration overrides and generates A2A cards', async () => {
    await putSystemConfig(
      domains.config,
      Config.SystemConfig.parse({
        agents: { coding_agent: { enabled: false, timeout: 5, url: 'http://coder:8010' } },
      }),
      'test',
    );
    const agents = await registeredAgents(deps, base.baseUrl);
    const coding = agents.find((a) => a.name === 'coding_agent')!;
    expect(coding).toMatchObject({ enabled: false, timeout: 5, url: 'http://coder:8010' });
    const summary = card(AgentRegistry.find(agents, 'summarizer_agent'), '0.1.0');
    expect(summary).toMatchObject({
      name: 'summarizer_agent',
      url: 'http://localhost:28000/agents/summarizer_agent/process',
      process_endpoint: '/agents/summarizer_agent/process',
      health_endpoint: '/health',
      skills: [{ id: 'summarization', name: 'Summarization' }],
      enabled: true,
      available: true,
    });
    expect(() => AgentRegistry.find(agents, 'nope')).toThrow("Agent 'nope' not found");
    expect((await failure(processAgent(deps, 'coding_agent', task('write code'), base))).message).toBe(
      "Agent 'coding_agent' is disabled",
    );
    await putSystemConfig(domains.config, Config.SystemConfig.parse({}), 'test');
  });
});

describe('processAgent', () => {
  it('answers 404 for an unknown agent or tenant, 400 for another body agent', async () => {
    expect(await failure(processAgent(deps, 'nope', task('q'), base))).toMatchObject({ status: 404 });
    expect(
      await failure(
        processAgent(deps, 'search_agent', { ...task('q'), context: { tenant_id: 'ghost' } }, base),
      ),
    ).toMatchObject({ status: 404, message: "Tenant 'ghost:ghost' not registered." });
    expect(
      await failure(processAgent(deps, 'search_agent', { ...task('q'), agent_name: 'coding_agent' }, base)),
    ).toMatchObject({ status: 400 });
    // Every agent of the roster is built: the audit explanation answers for a run it does not know.
    const missing = await failure(processAgent(deps, 'audit_explanation_agent', task('wf_none'), base));
    expect(missing).toMatchObject({ status: 404, message: "Workflow 'wf_none' not found" });
  });

  it("reads the tenant's record once a dispatch: the routed run and its search take the guarded tenant", async () => {
    // The completed run is handed to a sink that keeps it (its recording guards the tenant on its own).
    const sent: unknown[] = [];
    const kept = { ...deps, completedRuns: { send: async (message: unknown) => void sent.push(message) } };
    const reads = vi.spyOn(domains.tenancy.store, 'getTenant');
    try {
      const answer = await processAgent(kept, 'gateway_agent', task('late invoices fee'), base);
      expect(sent).toHaveLength(1);
      expect(answer).toMatchObject({
        status: 'completed',
        result: { routed_to: 'search_agent', result: { profile: 'document_text_semantic' } },
      });
      expect(reads).toHaveBeenCalledTimes(1);
      // A tenant guarded by the caller is taken as is; one of another tenant is not.
      reads.mockClear();
      const guarded = await requireTenant(domains.tenancy, 'acme');
      reads.mockClear();
      await processAgent(kept, 'search_agent', task('late invoices fee'), { ...base, guarded });
      expect(reads).not.toHaveBeenCalled();
      expect(
        await failure(
          processAgent(kept, 'search_agent', task('q', { tenant_id: 'ghost' }), { ...base, guarded }),
        ),
      ).toMatchObject({ status: 404, message: "Tenant 'ghost:ghost' not registered." });
    } finally {
      reads.mockRestore();
    }
  });

  it('searches with the profile that profile selection chooses and names its sources', async () => {
    const answer = await processAgent(deps, 'search_agent', task('late invoices fee'), base);
    expect(answer).toMatchObject({ status: 'completed', agent: 'search_agent' });
    const result = (answer as { result: Record<string, unknown> }).result;
    expect(result).toMatchObject({
      profile: 'document_text_semantic',
      profile_selected_by: 'profile_selection_agent',
      method: 'retrieval',
    });
    const results = result.results as { document_id: string; text: string }[];
    expect(results[0]!.text).toMatch(/Late invoices/);
    expect(result.sources).toEqual(results.map((r) => r.document_id));
  });

  it('answers with the document sentence that best answers the query, verbatim', async () => {
    const answer = (await processAgent(
      deps,
      'document_agent',
      task('how long until invoices are paid'),
      base,
    )) as {
      result: Record<string, unknown>;
    };
    expect(answer.result).toMatchObject({
      answer: 'Invoices are paid within thirty days.',
      method: 'extractive',
    });
  });

  it("writes an extractive report from the hits' sentences, not their title lines", async () => {
    const answer = (await processAgent(deps, 'detailed_report_agent', task('invoices'), base)) as {
      result: { report: { sections: { heading: string; body: string }[] }; method: string };
    };
    expect(answer.result.method).toBe('extractive');
    const [section] = answer.result.report.sections;
    expect(section!.heading).toBe('handbook.md');
    expect(section!.body).toContain('Invoices are paid within thirty days.');
    expect(section!.body).not.toContain('handbook.md');
  });

  it('summarizes extractively without an LLM, and through the LLM when the tenant has one', async () => {
    const extractive = (await processAgent(deps, 'summarizer_agent', task('invoices'), base)) as {
      result: { summary: string; method: string; sources: string[] };
    };
    expect(extractive.result.method).toBe('extractive');
    expect(extractive.result.summary).toContain('Invoices are paid within thirty days.');
    expect(extractive.result.sources.length).toBeGreaterThan(0);

    const llm = await servers.start(
      openAIChat(() => ({ content: { summary: 'Invoices: 30 days, 2% late fee.' } })),
    );
    await putTenantConfig(
      domains.config,
      'acme:acme',
      'llm',
      Config.LlmEndpointConfig.parse({ model: 'openai/m', api_base: `${llm.url}/v1` }),
      'test',
    );
    const generated = (await processAgent(deps, 'summarizer_agent', task('invoices'), base)) as {
      result: { summary: string; method: string };
    };
    expect(generated.result).toMatchObject({ summary: 'Invoices: 30 days, 2% late fee.', method: 'llm' });
    expect(JSON.stringify(llm.requests[0]!.body)).toContain('Late invoices carry a fee');
    await putTenantConfig(
      domains.config,
      'acme:acme',
      'llm',
      Config.LlmEndpointConfig.parse({
        model: 'openai/m',
        api_base: `${llm.url.replace(/:\d+$/, ':9')}/v1`,
        request_timeout: 1,
      }),
      'test',
    );
    expect(await failure(processAgent(deps, 'summarizer_agent', task('invoices'), base))).toMatchObject({
      status: 502,
    });
    await putTenantConfig(
      domains.config,
      'acme:acme',
      'llm',
      Config.LlmEndpointConfig.parse({ model: 'openai/m', api_base: `${llm.url}/v1` }),
      'test',
    );
  });

  it('reports a workflow run: started, its phases, the complete event; a taken id answers 409', async () => {
    const answer = await processAgent(
      deps,
      'entity_extraction_agent',
      task('Marie Curie worked in Paris', { workflow_id: 'wf-entities' }),
      base,
    );
    expect(answer).toMatchObject({
      status: 'completed',
      result: { entity_count: 2, dominant_types: ['Person', 'Location'] },
    });
    const events = await deps.events.read('wf-entities', 0, 100);
    expect(events.map((e) => ('phase' in e ? e.phase : e.type))).toEqual([
      'started',
      'extract_entities',
      'complete',
    ]);
    expect(
      await failure(
        processAgent(deps, 'entity_extraction_agent', task('x', { workflow_id: 'wf-entities' }), base),
      ),
    ).toMatchObject({
      status: 409,
    });
  });

  it('stops a workflow run that is cancelled at its next phase with the cancelled shape', async () => {
    const llm = await servers.start(
      openAIChat(async () => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return { content: { summary: 'late' } };
      }),
    );
    await putTenantConfig(
      domains.config,
      'acme:acme',
      'llm',
      Config.LlmEndpointConfig.parse({ model: 'openai/m', api_base: `${llm.url}/v1` }),
      'test',
    );
    const running = processAgent(
      deps,
      'summarizer_agent',
      task('invoices', { workflow_id: 'wf-cancel' }),
      base,
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    await deps.events.cancel('wf-cancel', 'workflow', 'user asked');
    expect(await running).toEqual({
      status: 'cancelled',
      agent: 'summarizer_agent',
      workflow_id: 'wf-cancel',
      message: 'Workflow wf-cancel was cancelled: user asked',
    });
    const events = await deps.events.read('wf-cancel', 0, 100);
    expect(events.at(-1)).toMatchObject({ type: 'status', state: 'cancelled', message: 'user asked' });
  });

  it('answers 504 and reports the run cancelled when the request ends first', async () => {
    const llm = await servers.start(openAIChat(() => 'hang'));
    await putTenantConfig(
      domains.config,
      'acme:acme',
      'llm',
      Config.LlmEndpointConfig.parse({ model: 'openai/m', api_base: `${llm.url}/v1` }),
      'test',
    );
    const error = await failure(
      processAgent(deps, 'summarizer_agent', task('invoices', { workflow_id: 'wf-ended' }), {
        ...base,
        signal: AbortSignal.timeout(200),
      }),
    );
    expect(error).toMatchObject({ status: 504 });
    const events = await deps.events.read('wf-ended', 0, 100);
    expect(events.at(-1)).toMatchObject({
      type: 'status',
      state: 'cancelled',
      message: 'The request running workflow wf-ended ended before it finished',
    });
  });

  it('answers 503 task_events_unavailable when the store does not answer', async () => {
    const broken: TaskEvents = Object.create(deps.events, {
      open: { value: async () => Promise.reject(new Error('connect ECONNREFUSED')) },
    });
    const error = await failure(
      processAgent({ ...deps, events: broken }, 'search_agent', task('q', { workflow_id: 'wf-down' }), base),
    );
    expect(error).toMatchObject({
      status: 503,
      detail: { error: 'task_events_unavailable', failure: 'TaskEventsUnavailable', task_id: 'wf-down' },
    });
  });
});
