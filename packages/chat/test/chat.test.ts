/** The chat domain over the fakes: model names, harness key checks, stream pieces, error objects. */
import { ValidationError } from '@tessera/core';
import { InMemoryHarnessKeyStore } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import {
  agentOf,
  chatTurn,
  completionErrorBody,
  errorFrame,
  hitsOf,
  mintKey,
  openAiError,
  pieces,
  revokeKey,
  sha256,
  stepsOf,
  TextDeltas,
  tenantOfKey,
} from '../src/index';

describe('hits and steps', () => {
  it("finds the hits of a result, the gateway's routed result included", () => {
    const hits = {
      results: [{ document_id: 'd1', source_doc_id: 'keys.md', text: 'Rotate keys.', score: 1 }],
    };
    expect(hitsOf({ result: hits })).toHaveLength(1);
    expect(hitsOf({ summary: 'no hits' })).toEqual([]);
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
    // `tessera/` names no agent: the model field is at fault, not an agent named ''.
    for (const model of ['tessera/', 'tessera/  ']) {
      expect(() => agentOf(model)).toThrow(
        expect.objectContaining({
          status: 422,
          detail: [expect.objectContaining({ loc: ['body', 'model'] })],
        }),
      );
    }
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

  it('refuses a body tenant_id and an X-Tessera-Tenant header that name different tenants', async () => {
    await expect(
      chatTurn(noDeps, question, { 'x-tessera-tenant': 'acme:dev' }, 'http://localhost'),
    ).rejects.toMatchObject({
      status: 422,
      detail: [
        {
          loc: ['body', 'tenant_id'],
          msg: expect.stringContaining("('acme:prod', 'acme:dev')"),
          input: { tenant_id: 'acme:prod', 'x-tessera-tenant': 'acme:dev' },
        },
      ],
    });
    await expect(
      chatTurn(noDeps, question, { 'x-tessera-tenant': 'bad:id:x' }, 'http://localhost'),
    ).rejects.toMatchObject({ status: 422 });
  });
});

describe('OpenAI error objects', () => {
  it("adds OpenAI's error beside the spec's detail, as the stream's error frame carries it", () => {
    const detail = { error: 'llm_unavailable', message: 'No LLM endpoint is configured.' };
    expect(completionErrorBody(503, { detail })).toEqual({
      detail,
      error: { message: 'No LLM endpoint is configured.', type: 'llm_unavailable', code: '503' },
    });
    expect(completionErrorBody(404, { detail: "Agent 'nope' not found" })).toEqual({
      detail: "Agent 'nope' not found",
      error: { message: "Agent 'nope' not found", type: 'invalid_request_error', code: '404' },
    });
    const issues = [{ type: 'missing', loc: ['body', 'tenant_id'], msg: 'required', input: {} }];
    expect(openAiError(422, issues)).toEqual({
      message: 'body.tenant_id: required',
      type: 'invalid_request_error',
      code: '422',
    });
    expect(openAiError(500, 'Internal server error').type).toBe('server_error');
    expect(errorFrame(new ValidationError(issues)).error).toEqual(openAiError(422, issues));
  });
});
