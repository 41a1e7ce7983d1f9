/** The chat domain over the fakes: answer texts from agent results, harness key checks, stream pieces. */
import { InMemoryHarnessKeyStore } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import {
  agentOf,
  answerText,
  chatTurn,
  hitsOf,
  mintKey,
  pieces,
  revokeKey,
  sha256,
  stepsOf,
  TextDeltas,
  tenantOfKey,
} from '../src/index';

describe('answerText', () => {
  it("answers the agent's own answer first, then its hits, never text of its own", () => {
    expect(answerText({ summary: 'Keys rotate every ninety days.', sources: [] })).toBe(
      'Keys rotate every ninety days.',
    );
    expect(answerText({ orchestration_result: { final_answer: 'Done.' }, answer: 'other' })).toBe('Done.');
    expect(
      answerText({
        report: {
          title: 'Keys',
          sections: [{ heading: 'Rotation', body: 'Every ninety days.', citations: [] }],
        },
      }),
    ).toBe('# Keys\n\n## Rotation\n\nEvery ninety days.');
    const hits = {
      results: [
        { document_id: 'd1', source_doc_id: 'keys.md', text: 'Rotate keys every ninety days.', score: 1 },
        { document_id: 'd2', source_doc_id: 'vault.md', text: 'Store them in the vault.', score: 0.5 },
      ],
    };
    expect(answerText(hits)).toBe(
      'Found 2 results:\n1. [keys.md] Rotate keys every ninety days.\n2. [vault.md] Store them in the vault.',
    );
    expect(answerText({ results: [] })).toBe('No matching content was found.');
    // The gateway answers with its routed agent's result.
    expect(answerText({ classification: 'simple', result: hits })).toContain('[keys.md]');
    expect(hitsOf({ result: hits })).toHaveLength(2);
    expect(
      answerText({
        files: [{ path: 'a.py', language: 'python', content: 'print(1)' }],
        explanation: 'A script.',
      }),
    ).toBe('A script.\n\na.py:\n```python\nprint(1)\n```');
  });

  it('answers that nothing was found when a summary or report agent found no source', () => {
    // The summarizer and the report agent over an empty tenant: no summary, no sections, no sources.
    expect(answerText({ summary: '', method: 'extractive', sources: [] })).toBe(
      'No matching content was found.',
    );
    expect(
      answerText({
        report: { title: 'Report: key policy', sections: [] },
        method: 'extractive',
        sources: [],
      }),
    ).toBe('No matching content was found.');
    // The gateway routing to one of them answers the same.
    expect(answerText({ classification: 'simple', result: { summary: '', sources: [] } })).toBe(
      'No matching content was found.',
    );
  });

  it("lists an orchestration's steps with their results", () => {
    const steps = stepsOf({
      orchestration_result: {
        plan: { steps: [{ agent_name: 'search_agent', query: 'q1', depends_on: [] }] },
        step_results: [{ count: 2 }],
        final_answer: 'x',
      },
    });
    expect(steps).toEqual([{ id: 'step_0', agent: 'search_agent', query: 'q1', result: { count: 2 } }]);
  });
});

describe('agentOf and pieces', () => {
  it('reads the agent of a model name, gateway by default', () => {
    expect(agentOf(undefined)).toBe('gateway_agent');
    expect(agentOf('tessera/search_agent')).toBe('search_agent');
    expect(agentOf('summarizer_agent')).toBe('summarizer_agent');
  });

  it('cuts text at spaces and loses nothing', () => {
    const text = 'word '.repeat(100).trim();
    expect(pieces(text).join('')).toBe(text);
    expect(pieces(text).every((piece) => piece.length <= 48)).toBe(true);
    expect(pieces('x'.repeat(100)).join('')).toBe('x'.repeat(100));
  });
});

describe('TextDeltas', () => {
  it('writes the deltas in order, one at a time, and drops those published after the end', async () => {
    const written: string[] = [];
    let writing = 0;
    const deltas = new TextDeltas(async (delta) => {
      writing++;
      expect(writing).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 3 - written.length));
      written.push(delta);
      writing--;
    });
    for (const delta of ['Late ', '', 'invoices ', 'carry a fee.']) deltas.sink(delta);
    expect(deltas.streamed).toBe(true);
    await deltas.end();
    deltas.sink(' Too late.');
    await deltas.end();
    expect(written).toEqual(['Late ', 'invoices ', 'carry a fee.']);
  });

  it('completes the answer after what streamed: all of it, its remainder, or nothing', async () => {
    const none = new TextDeltas(async () => undefined);
    expect(none.rest('Found 2 results: a and b').join('')).toBe('Found 2 results: a and b');
    const explanation = new TextDeltas(async () => undefined);
    explanation.sink(' A parser.');
    expect(explanation.rest('A parser.\n\nsrc/parse.ts:\n```ts\nx\n```').join('')).toBe(
      '\n\nsrc/parse.ts:\n```ts\nx\n```',
    );
    const whole = new TextDeltas(async () => undefined);
    whole.sink('The whole answer. ');
    expect(whole.rest('The whole answer.')).toEqual([]);
    const other = new TextDeltas(async () => undefined);
    other.sink('Something else');
    expect(other.rest('The answer')).toEqual([]);
  });
});

describe('harness keys', () => {
  it('stores only the hash, opens the tenant, refuses revoked, expired and unknown keys', async () => {
    const store = new InMemoryHarnessKeyStore();
    const now = 1_800_000_000_000;
    const key = await mintKey(store, 'acme:acme', 60, now);
    const stored = await store.get(key.key_id);
    expect(stored).toEqual({
      key_id: key.key_id,
      key_hash: sha256(key.key),
      tenant_id: 'acme:acme',
      expires_at: 1_800_000_060,
    });
    expect(await tenantOfKey(store, `Bearer ${key.key}`, now)).toBe('acme:acme');
    await expect(tenantOfKey(store, undefined, now)).rejects.toMatchObject({ status: 401 });
    await expect(tenantOfKey(store, `Bearer ${key.key}x`, now)).rejects.toMatchObject({ status: 401 });
    await expect(tenantOfKey(store, `Bearer ${key.key}`, now + 60_000)).rejects.toMatchObject({
      status: 401,
      detail: 'The harness key expired',
    });
    expect(await revokeKey(store, key.key_id, now)).toEqual({ status: 'revoked', key_id: key.key_id });
    await expect(tenantOfKey(store, `Bearer ${key.key}`, now)).rejects.toMatchObject({
      detail: 'The harness key was revoked',
    });
    await expect(revokeKey(store, 'hk_000000000000000000000000', now)).rejects.toMatchObject({ status: 404 });
  });
});

describe('chatTurn', () => {
  const question = { messages: [{ role: 'user' as const, content: 'rotate keys' }], tenant_id: 'acme:prod' };
  // The context id is checked before any store or agent is read, so no dependencies are needed.
  const noDeps = {} as never;

  it('names where a bad context id came from: the body or the X-Tessera-Context header', async () => {
    await expect(
      chatTurn(noDeps, { ...question, metadata: { context_id: 'bad id' } }, {}, 'http://localhost'),
    ).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'metadata', 'context_id'], input: 'bad id' }],
    });
    await expect(
      chatTurn(noDeps, question, { 'x-tessera-context': 'bad id' }, 'http://localhost'),
    ).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['header', 'x-tessera-context'], input: 'bad id' }],
    });
  });
});
