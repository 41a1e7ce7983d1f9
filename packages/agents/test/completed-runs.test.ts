import { CompromiseEntityExtractor } from '@tessera/extractors';
import { listMemories, type MemoryStore } from '@tessera/memories';
import { createTenant } from '@tessera/tenancy';
import { fakeDomains } from '@tessera/testing/fakes';
import { wikiIndex } from '@tessera/wiki';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AgentsDeps,
  type CompletedRunMessage,
  completedRunMessage,
  entityNames,
  MAX_MESSAGE_BYTES,
  processAgent,
  type RecordDeps,
  recordCompletedRuns,
} from '../src/index';
import { fakeAgentsDeps } from './support';

const domains = fakeDomains();
const sent: CompletedRunMessage[] = [];
const deps: AgentsDeps = fakeAgentsDeps(domains, {
  completedRuns: { send: async (message) => void sent.push(message) },
});
const writer: RecordDeps = {
  memories: domains.memories,
  wiki: domains.wiki,
  tag: entityNames(new CompromiseEntityExtractor()),
};
const memoriesOf = async (tenant: string) =>
  (await listMemories(domains.memories, tenant, { limit: 100 })).memories;
const records = (...messages: CompletedRunMessage[]) =>
  messages.map((message, i) => ({ messageId: `m${i}`, body: JSON.stringify(message) }));

beforeAll(async () => {
  for (const tenant of ['acme', 'quiet'])
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
});

describe('completed runs', () => {
  it('are handed to the queue before the answer, then written once however often delivered', async () => {
    const query = 'Ada Lovelace, Charles Babbage and the Analytical Engine in London';
    const answer = await processAgent(
      deps,
      'text_analysis_agent',
      { query, context: { tenant_id: 'acme' } },
      {
        baseUrl: 'http://localhost:28000',
      },
    );
    expect(answer.status).toBe('completed');
    expect(sent).toHaveLength(1);
    const message = sent[0]!;
    expect(message).toMatchObject({ tenant_id: 'acme:acme', agent_name: 'text_analysis_agent', query });
    expect(message.tenant_incarnation).toEqual(expect.any(String));
    // Nothing is written until the worker takes the message.
    expect(await memoriesOf('acme')).toEqual([]);

    expect(await recordCompletedRuns(writer, records(message, message))).toEqual({ batchItemFailures: [] });
    expect(await recordCompletedRuns(writer, records(message))).toEqual({ batchItemFailures: [] });
    const memories = await memoriesOf('acme');
    expect(memories).toHaveLength(1);
    expect(memories[0]).toMatchObject({ memory_id: message.run_id, created_at: message.completed_at });
    expect(memories[0]!.content).toMatch(/^Q: Ada Lovelace/);
    // Three entities or more: the run is filed, as one session.
    const pages = (await wikiIndex(domains.wiki, 'acme')).pages;
    expect(pages.filter((page) => page.kind === 'session')).toHaveLength(1);
  });

  it('drops a message that can never be written and asks again for one that failed for now', async () => {
    const good = completedRunMessage({
      tenant_id: 'quiet:quiet',
      agent_name: 'search_agent',
      query: 'holidays',
      context: { tenant_id: 'quiet' },
      result: { answer: 'Closed on public holidays.' },
    });
    const failing: MemoryStore = {
      ...domains.memories.store,
      add: () => Promise.reject(new Error('the search backend did not answer')),
    };
    const down = { ...writer, memories: { ...domains.memories, store: failing } };
    const batch = [
      ...records({ ...good, tenant_id: 'ghost:ghost' }),
      { messageId: 'bad-json', body: '{' },
      { messageId: 'bad-shape', body: JSON.stringify({ run_id: 1 }) },
      { messageId: 'good', body: JSON.stringify(good) },
    ];
    expect(await recordCompletedRuns(down, batch)).toEqual({
      batchItemFailures: [{ itemIdentifier: 'good' }],
    });
    expect(await memoriesOf('quiet')).toEqual([]);
    expect(await recordCompletedRuns(writer, batch)).toEqual({ batchItemFailures: [] });
    expect(await memoriesOf('quiet')).toHaveLength(1);
  });

  it('writes the runs of one tenant in a batch with one memory write and one wiki write', async () => {
    const adds = vi.spyOn(domains.memories.store, 'add');
    const filings = vi.spyOn(domains.wiki.store, 'updateMany');
    const runs = Array.from({ length: 6 }, (_, i) =>
      completedRunMessage({
        tenant_id: 'acme:acme',
        agent_name: 'search_agent',
        query: `turn ${i} of a long conversation`,
        context: { tenant_id: 'acme', history: ['a', 'b', 'c', 'd'] },
        result: { answer: `answer ${i}` },
      }),
    );
    const sessions = async () =>
      (await wikiIndex(domains.wiki, 'acme')).pages.filter((page) => page.kind === 'session').length;
    const before = { memories: (await memoriesOf('acme')).length, sessions: await sessions() };
    try {
      expect(await recordCompletedRuns(writer, records(...runs))).toEqual({ batchItemFailures: [] });
      expect(adds).toHaveBeenCalledTimes(1);
      expect(filings).toHaveBeenCalledTimes(1);
    } finally {
      adds.mockRestore();
      filings.mockRestore();
    }
    expect(await memoriesOf('acme')).toHaveLength(before.memories + 6);
    // Five turns each: every run is filed.
    expect(await sessions()).toBe(before.sessions + 6);
  });

  it('writes nothing of a run whose tenant was deleted and created again since', async () => {
    const message = completedRunMessage({
      tenant_id: 'quiet:quiet',
      tenant_incarnation: 'an earlier creation',
      agent_name: 'coding_agent',
      query: 'write a parser',
      context: { tenant_id: 'quiet' },
      result: { answer: 'Done.' },
    });
    expect(await recordCompletedRuns(writer, records(message))).toEqual({ batchItemFailures: [] });
    expect((await memoriesOf('quiet')).filter((m) => m.agent_name === 'coding_agent')).toEqual([]);
  });

  it('sends a result too large for a message as its answer text and sources', () => {
    const result = {
      answer: 'The short answer. And more.',
      sources: ['d1', 'd2'],
      results: Array.from({ length: 500 }, (_, i) => ({ document_id: `d${i}`, text: 'x'.repeat(1000) })),
    };
    const message = completedRunMessage({
      tenant_id: 'acme:acme',
      agent_name: 'search_agent',
      query: 'q',
      context: { tenant_id: 'acme', history: ['a', 'b', 'c'] },
      result,
    });
    expect(Buffer.byteLength(JSON.stringify(message))).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(message.result).toEqual({ answer: 'The short answer. And more.', sources: ['d1', 'd2'] });
    expect(message.context).toEqual({ tenant_id: 'acme', turns: 4 });
    const small = completedRunMessage({ ...message, result: { answer: 'a' } });
    expect(small.result).toEqual({ answer: 'a' });
    // A conversation's history is counted, not sent, whatever the message's size.
    const turn = completedRunMessage({
      ...message,
      context: {
        tenant_id: 'acme',
        context_id: '42',
        history: Array(6).fill({ role: 'user', content: 'x' }),
      },
      result: { answer: 'a' },
    });
    expect(turn.context).toEqual({ tenant_id: 'acme', turns: 7 });
  });
});
