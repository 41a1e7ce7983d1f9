import { Config } from '@tessera/api';
import { putTenantConfig } from '@tessera/config';
import { indexDocuments } from '@tessera/content';
import { listMemories, type MemoryStore, putInstructions, remember } from '@tessera/memories';
import { createTenant } from '@tessera/tenancy';
import { openAIChat, useServers } from '@tessera/testing';
import { fakeDomains } from '@tessera/testing/fakes';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AGENTS,
  type Agent,
  type AgentRun,
  type AgentsDeps,
  answerLine,
  memoryOf,
  processAgent,
} from '../src/index';
import { fakeAgentsDeps } from './support';

const domains = fakeDomains();

/** An agent that answers what its run was given: its instructions and what it recalled. */
const PROBE = 'coding_agent' as const;
const probe: Agent = {
  name: PROBE,
  async run(_deps, run: AgentRun) {
    const recalled = await run.recall(run.query, 3);
    // A query of 'no prompt' stands for a run that prompts no model: it asks for no instructions.
    if (run.query === 'no prompt') return { answer: `Recalled ${recalled.length}.`, recalled };
    const instructions = [await run.instructions(), await run.instructions()];
    return { answer: `Recalled ${recalled.length}.`, instructions: instructions[1], recalled };
  },
};
/** The built agents, which the probe joins for this file. */
const agents = AGENTS as Map<string, Agent>;
const built = agents.get(PROBE);

const deps: AgentsDeps = fakeAgentsDeps(domains, {}, [...AGENTS.keys(), PROBE]);
const base = { baseUrl: 'http://localhost:28000' };
const task = (tenant: string, query: string, context: Record<string, unknown> = {}) => ({
  query,
  context: { tenant_id: tenant, ...context },
});
const servers = useServers();

const memoriesOf = async (tenant: string, agent?: string) =>
  (await listMemories(domains.memories, tenant, { agentName: agent, limit: 1000 })).memories;

beforeAll(async () => {
  agents.set(PROBE, probe);
  for (const tenant of ['acme', 'globex', 'quiet'])
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
  await indexDocuments(domains.content, {
    tenant: 'acme',
    profile: 'document_text_semantic',
    sourceDocId: 'handbook.md',
    documents: [
      {
        fields: {
          title: 'handbook.md',
          text: 'Invoices are paid within thirty days. Late invoices carry a fee.',
        },
      },
      { fields: { title: 'handbook.md', text: 'The office is closed on public holidays.' } },
    ],
  });
});

afterAll(() => {
  if (built) agents.set(PROBE, built);
  else agents.delete(PROBE);
});

describe('the memory of a run', () => {
  it('is stored for the tenant and agent after a completed run: the query and the answer’s first sentence', async () => {
    const query = 'how long until invoices are paid?';
    const answer = await processAgent(deps, 'document_agent', task('acme', query), base);
    expect(answer).toMatchObject({ result: { answer: 'Invoices are paid within thirty days.' } });
    await vi.waitFor(async () => expect(await memoriesOf('acme', 'document_agent')).toHaveLength(1));
    const [memory] = await memoriesOf('acme', 'document_agent');
    expect(memory!.content).toBe(`Q: ${query}\nA: Invoices are paid within thirty days.`);
    expect(await memoriesOf('acme', 'search_agent')).toEqual([]);
    expect(await memoriesOf('globex')).toEqual([]);
  });

  it('does not hold the answer back, and a store that fails does not fail the run', async () => {
    const never: MemoryStore = { ...domains.memories.store, add: () => new Promise(() => {}) };
    const failing: MemoryStore = {
      ...domains.memories.store,
      add: () => Promise.reject(new Error('the search backend did not answer')),
    };
    for (const store of [never, failing]) {
      const slowDeps = { ...deps, memories: { ...domains.memories, store } };
      const started = Date.now();
      const answer = await processAgent(slowDeps, 'search_agent', task('quiet', 'holidays'), base);
      expect(answer.status).toBe('completed');
      expect(Date.now() - started).toBeLessThan(2000);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await memoriesOf('quiet')).toEqual([]);
  });
});

describe('a run', () => {
  it("recalls its own tenant's memories of its agent, best first, never another tenant's", async () => {
    const words = 'The staging database password rotates every Monday.';
    const mine = await remember(domains.memories, 'globex', PROBE, words);
    await remember(domains.memories, 'globex', PROBE, 'Lunch is served at noon in the atrium.');
    await remember(domains.memories, 'globex', 'search_agent', words);
    const theirs = await remember(domains.memories, 'acme', PROBE, words);
    const answer = (await processAgent(
      deps,
      PROBE,
      task('globex', 'when does the staging password rotate'),
      base,
    )) as unknown as {
      result: { recalled: { memory_id: string; agent_name: string }[] };
    };
    const recalled = answer.result.recalled;
    expect(recalled[0]!.memory_id).toBe(mine.memory_id);
    expect(recalled.every((m) => m.agent_name === PROBE)).toBe(true);
    expect(recalled.map((m) => m.memory_id)).not.toContain(theirs.memory_id);
  });

  it("is given the tenant's instructions ('' when none)", async () => {
    const none = (await processAgent(deps, PROBE, task('quiet', 'x'), base)) as unknown as {
      result: { instructions: string };
    };
    expect(none.result.instructions).toBe('');
    await putInstructions(domains.memories, 'quiet', 'Answer in one sentence.');
    const some = (await processAgent(deps, PROBE, task('quiet', 'x'), base)) as unknown as {
      result: { instructions: string };
    };
    expect(some.result.instructions).toBe('Answer in one sentence.');
  });

  it('reads the instructions once for a run that prompts, and not at all for one that does not', async () => {
    const reads = vi.spyOn(domains.memories.instructions, 'get');
    try {
      await processAgent(deps, PROBE, task('quiet', 'no prompt'), base);
      expect(reads).not.toHaveBeenCalled();
      await processAgent(deps, PROBE, task('quiet', 'x'), base);
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  it("puts the tenant's instructions in the summarizer's system prompt", async () => {
    const llm = await servers.start(openAIChat(() => ({ content: { summary: 'Invoices: thirty days.' } })));
    await putTenantConfig(
      domains.config,
      'acme:acme',
      'llm',
      Config.LlmEndpointConfig.parse({ model: 'openai/m', api_base: `${llm.url}/v1` }),
      'test',
    );
    await putInstructions(domains.memories, 'acme', 'Always answer in French, citing the handbook.');
    const answer = await processAgent(deps, 'summarizer_agent', task('acme', 'invoices'), base);
    expect(answer).toMatchObject({ result: { method: 'llm' } });
    const body = llm.requests[0]!.body as { messages: { role: string; content: string }[] };
    const system = body.messages.find((m) => m.role === 'system')!;
    expect(system.content).toContain('Always answer in French, citing the handbook.');
    expect(
      body.messages
        .filter((m) => m.role !== 'system')
        .map((m) => m.content)
        .join(''),
    ).not.toContain('Always answer in French');
  });
});

describe('answerLine', () => {
  it('takes the first sentence of an answer, a summary or a final answer', () => {
    expect(answerLine({ answer: 'Paid in 30 days. Fees apply.' })).toBe('Paid in 30 days.');
    expect(answerLine({ summary: 'Short.\nLonger.' })).toBe('Short.');
    expect(answerLine({ orchestration_result: { final_answer: 'Done it. Yes.' } })).toBe('Done it.');
  });

  it("names the top hit's source, the files, the entities, the routed agent's answer", () => {
    expect(
      answerLine({ results: [{ document_id: 'd1', source_doc_id: 'a.md', text: 'First one. Second.' }] }),
    ).toBe('top hit a.md: First one.');
    expect(answerLine({ results: [] })).toBe('no results');
    expect(answerLine({ files: [{ path: 'a.ts' }, { path: 'b.ts' }] })).toBe('files: a.ts, b.ts');
    expect(answerLine({ entities: [{ text: 'Paris' }], entity_count: 1 })).toBe('entities: Paris');
    expect(answerLine({ routed_to: 'search_agent', result: { answer: 'Yes. No.' } })).toBe(
      'search_agent: Yes.',
    );
  });

  it('says nothing it cannot take from the result', () => {
    expect(answerLine({})).toBeUndefined();
    expect(memoryOf('q', {})).toBe('Q: q\nA: completed with no answer text');
    expect(memoryOf('a\n  b', { answer: 'x'.repeat(1000) }).split('\n')).toHaveLength(2);
  });
});
