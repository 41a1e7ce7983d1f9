/**
 * Chat through the local runtime: `/v1/chat/completions` with the official `openai` client (JSON and
 * streamed), conversations over several turns whose history reaches the agent, `response_format` forwarded
 * intact to an OpenAI-compatible server on loopback, the conversation routes and tenant isolation, a client
 * that goes away mid-stream; AG-UI runs through `@ag-ui/client`'s HttpAgent with harness keys (valid,
 * expired, revoked, of another tenant).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { openAIChat, startServer, type TestServer } from '@tessera/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
let rt: RuntimeProcess;
let llm: TestServer;
/** Queries whose summarizer call the fake LLM holds (the client disconnects meanwhile). */
const slow = new Set<string>();
/** Queries whose summary the fake LLM streams slowly: pieces of 6 characters, `intervalMs` apart. */
const paced = new Map<string, number>();

const chunks = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 40);

const VERDICT_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'verdict',
    strict: true,
    schema: {
      type: 'object',
      properties: { verdict: { type: 'string' }, sources: { type: 'array', items: { type: 'string' } } },
      required: ['verdict', 'sources'],
      additionalProperties: false,
    },
  },
} as const;

const client = (tenant: string) =>
  new OpenAI({
    baseURL: `${rt.url}/v1`,
    apiKey: 'unused',
    defaultHeaders: { 'X-Tessera-Tenant': tenant },
    maxRetries: 0,
  });

beforeAll(async () => {
  llm = await startServer(
    openAIChat(async (request) => {
      const user = request.messages.at(-1)!.content;
      if (request.response_format?.json_schema?.name === 'orchestration_plan') {
        return {
          content: { steps: [{ agent_name: 'search_agent', query: 'merge insert', depends_on: [] }] },
        };
      }
      if (request.response_format?.json_schema?.name === 'orchestration_answer') {
        return {
          content: { final_answer: 'Merge insert upserts rows, the search step found.' },
          chunkChars: 4,
        };
      }
      if (request.response_format?.json_schema?.name === 'code_files') {
        return {
          content: {
            explanation: 'A parser that reads "key=value" lines.',
            files: [
              { path: 'src/parse.ts', language: 'typescript', content: 'export const parse = () => 1;' },
            ],
          },
          chunkChars: 5,
        };
      }
      if (request.response_format?.json_schema?.name === 'verdict') {
        return { content: { verdict: `answered: ${user.split('\n')[0]}`, sources: ['lancedb-notes.md'] } };
      }
      if ([...slow].some((query) => user.includes(query))) await new Promise((r) => setTimeout(r, 3000));
      const pace = [...paced].find(([query]) => user.includes(query))?.[1];
      return {
        content: { summary: `LLM summary for ${user.split('\n').find((l) => l.startsWith('Request:'))}` },
        ...(pace ? { chunkChars: 6, intervalMs: pace } : {}),
      };
    }),
  );
  rt = await spawnRuntime();
  for (const tenant of ['acme', 'rival']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant })).status).toBe(201);
  }
  expect(
    (
      await call(rt.url, 'PUT', '/admin/tenants/acme/config/llm', {
        model: 'openai/chat',
        api_base: `${llm.url}/v1`,
      })
    ).status,
  ).toBe(200);
  process.env.TESSERA_DATA_DIR = rt.dataDir;
  process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  await feed('acme', 'lancedb-notes.md', readFileSync(path.join(root, 'docs/lancedb-notes.md'), 'utf8'));
  await feed(
    'rival',
    'rival-notes.md',
    'Rival keeps its invoices in a shoebox under the desk of the accountant, sorted by merge date.',
  );
}, 120_000);

async function feed(tenant: string, source: string, text: string) {
  const { content, indexDocuments } = await import('@tessera/content');
  await indexDocuments(content(), {
    tenant,
    profile: 'document_text_semantic',
    sourceDocId: source,
    documents: chunks(text).map((paragraph) => ({ fields: { title: source, text: paragraph } })),
  });
}

afterAll(async () => {
  await rt?.stop();
  await llm?.close();
});

/** A GET of the runtime. */
const call_ = (route: string) => call(rt.url, 'GET', route);

/** A raw streamed summarizer turn of acme in conversation `contextId`, which the client may leave. */
const summaryStream = (question: string, contextId: string, signal: AbortSignal) =>
  fetch(`${rt.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tessera-tenant': 'acme' },
    body: JSON.stringify({
      model: 'tessera/summarizer_agent',
      stream: true,
      metadata: { context_id: contextId },
      messages: [{ role: 'user', content: question }],
    }),
    signal,
  });

describe('/v1/chat/completions with the openai client (integration)', () => {
  it('answers a search agent turn as JSON and streamed, the same text, derived from the hits', async () => {
    const openai = client('acme');
    const answer = await openai.chat.completions.create({
      model: 'tessera/search_agent',
      messages: [{ role: 'user', content: 'merge insert upsert' }],
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.model).toBe('tessera/search_agent');
    const text = answer.choices[0]!.message.content!;
    expect(text).toMatch(/^Found \d+ results?:\n1\. \[lancedb-notes\.md\]/);
    const extra = (answer as unknown as { tessera: { agent: string; result: { results: unknown[] } } })
      .tessera;
    expect(extra.agent).toBe('search_agent');
    expect(extra.result.results.length).toBeGreaterThan(0);

    const stream = await openai.chat.completions.create({
      model: 'search_agent',
      messages: [{ role: 'user', content: 'merge insert upsert' }],
      stream: true,
    });
    let streamed = '';
    const finishes: (string | null)[] = [];
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      streamed += chunk.choices[0]?.delta.content ?? '';
      finishes.push(chunk.choices[0]?.finish_reason ?? null);
    }
    expect(streamed).toBe(text);
    expect(finishes.at(-1)).toBe('stop');
  });

  it('ends a raw stream with data: [DONE] and takes the tenant from the body too', async () => {
    const response = await fetch(`${rt.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tessera/text_analysis_agent',
        tenant_id: 'acme',
        stream: true,
        messages: [{ role: 'user', content: 'Ada Lovelace wrote the first program in London.' }],
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const content = text
      .split('\n\n')
      .filter((block) => block.startsWith('data: {'))
      .map((block) => JSON.parse(block.slice(6)).choices[0].delta.content ?? '')
      .join('');
    expect(content).toMatch(/^Language: [a-z]+; keywords: .*lovelace/i);
  });

  it('refuses an unknown model, a missing tenant and an unregistered one in the spec shapes', async () => {
    const unknown = await call(
      rt.url,
      'POST',
      '/v1/chat/completions',
      { model: 'tessera/nope', messages: [{ role: 'user', content: 'hi' }] },
      { 'x-tessera-tenant': 'acme' },
    );
    expect(unknown.status).toBe(404);
    // The spec's detail, with OpenAI's error object beside it.
    expect(unknown.body).toEqual({
      detail: "Agent 'nope' not found",
      error: { message: "Agent 'nope' not found", type: 'invalid_request_error', code: '404' },
    });
    const error = (await client('acme')
      .chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.message).toBe("404 Agent 'nope' not found");
    expect(error.error).toMatchObject({ message: "Agent 'nope' not found", code: '404' });
    // `tessera/` alone names no agent: the model field is refused, not an agent named ''.
    const empty = (await client('acme')
      .chat.completions.create({ model: 'tessera/', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(empty).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(empty.message).toMatch(/^422 body\.model: Name an agent after `tessera\/`/);
    // A body tenant_id and a header naming another tenant: 422, never one of them silently.
    const clash = await call(
      rt.url,
      'POST',
      '/v1/chat/completions',
      { tenant_id: 'rival', messages: [{ role: 'user', content: 'hi' }] },
      { 'x-tessera-tenant': 'acme' },
    );
    expect(clash.status).toBe(422);
    expect(clash.body.detail[0]).toMatchObject({ loc: ['body', 'tenant_id'] });
    expect(clash.body.error.message).toContain("('rival', 'acme')");
    const same = await call(
      rt.url,
      'POST',
      '/v1/chat/completions',
      {
        tenant_id: 'acme:acme',
        model: 'tessera/text_analysis_agent',
        messages: [{ role: 'user', content: 'hi' }],
      },
      { 'x-tessera-tenant': 'acme' },
    );
    expect(same.status).toBe(200);
    const missing = await call(rt.url, 'POST', '/v1/chat/completions', {
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'tenant_id']);
    const unregistered = await call(rt.url, 'POST', '/v1/chat/completions', {
      tenant_id: 'ghost',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(unregistered.status).toBe(404);
    expect(unregistered.body.detail).toBe("Tenant 'ghost:ghost' not registered.");
    const noQuestion = await call(rt.url, 'POST', '/v1/chat/completions', {
      tenant_id: 'acme',
      messages: [{ role: 'assistant', content: 'hello' }],
    });
    expect(noQuestion.status).toBe(422);
  });

  it('keeps a conversation over several turns and gives the agent its history', async () => {
    const openai = client('acme');
    const contextId = `conv_${Date.now().toString(36)}`;
    const ask = (content: string, stream: boolean) =>
      stream
        ? openai.chat.completions
            .create({
              model: 'tessera/summarizer_agent',
              messages: [{ role: 'user', content }],
              metadata: { context_id: contextId },
              stream: true,
            })
            .then(async (s) => {
              let text = '';
              for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? '';
              return text;
            })
        : openai.chat.completions
            .create({
              model: 'tessera/summarizer_agent',
              messages: [{ role: 'user', content }],
              metadata: { context_id: contextId },
            })
            .then((a) => a.choices[0]!.message.content!);
    const first = await ask('What does merge insert do?', false);
    expect(first).toBe('LLM summary for Request: What does merge insert do?');
    const second = await ask('And what about deletes?', true);
    expect(second).toBe('LLM summary for Request: And what about deletes?');
    const third = await ask('Summarize both answers.', false);
    expect(third).toContain('Summarize both answers.');

    // The third call's prompt carried the first two turns, oldest first.
    const prompt = llm.requests
      .map((r) => (r.body as { messages: { content: string }[] }).messages.at(-1)!.content)
      .find((content) => content.includes('Request: Summarize both answers.'))!;
    expect(prompt).toContain(
      `Conversation so far:\n\nuser: What does merge insert do?\nassistant: ${first}\nuser: And what about deletes?\nassistant: ${second}`,
    );

    const threads = await call(rt.url, 'GET', '/conversations?tenant_id=acme');
    expect(threads.status).toBe(200);
    expect(threads.body.threads).toContainEqual({
      context_id: contextId,
      title: 'What does merge insert do?',
      updated_at: expect.any(String),
      message_count: 6,
    });
    const thread = await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=acme`);
    expect(thread.status).toBe(200);
    expect(thread.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'What does merge insert do?'],
      ['assistant', first],
      ['user', 'And what about deletes?'],
      ['assistant', second],
      ['user', 'Summarize both answers.'],
      ['assistant', third],
    ]);
    expect(thread.body.messages[1].agent).toBe('summarizer_agent');

    // The conversation header names the thread as well as metadata does.
    await call(
      rt.url,
      'POST',
      '/v1/chat/completions',
      { model: 'tessera/search_agent', messages: [{ role: 'user', content: 'deletes' }] },
      { 'x-tessera-tenant': 'acme', 'x-tessera-context': contextId },
    );
    expect((await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=acme`)).body.message_count).toBe(
      8,
    );

    expect((await call(rt.url, 'DELETE', `/conversations/${contextId}?tenant_id=acme`)).body).toEqual({
      status: 'deleted',
      context_id: contextId,
    });
    expect((await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=acme`)).status).toBe(404);
    expect((await call(rt.url, 'DELETE', `/conversations/${contextId}?tenant_id=acme`)).status).toBe(404);
  });

  it('keeps the conversation a dispatch names with context.context_id, as a chat gateway sends it', async () => {
    const contextId = `chat_${Date.now().toString(36)}`;
    const dispatch = (query: string) =>
      call(rt.url, 'POST', '/agents/summarizer_agent/process', {
        query,
        context: { tenant_id: 'acme', context_id: contextId },
      });
    const first = await dispatch('What does merge insert do?');
    expect(first.status).toBe(200);
    expect((await dispatch('And deletes?')).status).toBe(200);
    const prompt = llm.requests
      .map((r) => (r.body as { messages: { content: string }[] }).messages.at(-1)!.content)
      .findLast((content) => content.includes('Request: And deletes?'))!;
    expect(prompt).toContain(
      `Conversation so far:\n\nuser: What does merge insert do?\nassistant: ${first.body.result.summary}`,
    );
    const thread = await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=acme`);
    expect(thread.body.message_count).toBe(4);
    const bad = await call(rt.url, 'POST', '/agents/search_agent/process', {
      query: 'x',
      context: { tenant_id: 'acme', context_id: 'no spaces allowed' },
    });
    expect(bad.status).toBe(422);
  });

  it('forwards response_format intact to the LLM and answers what it wrote under it, streamed too', async () => {
    const openai = client('acme');
    const before = llm.requests.length;
    const answer = await openai.chat.completions.create({
      model: 'tessera/search_agent',
      messages: [{ role: 'user', content: 'Is merge insert an upsert?' }],
      response_format: VERDICT_FORMAT,
    });
    const content = JSON.parse(answer.choices[0]!.message.content!);
    expect(content).toEqual({
      verdict: 'answered: Is merge insert an upsert?',
      sources: ['lancedb-notes.md'],
    });
    const seen = llm.requests
      .slice(before)
      .map((r) => r.body as { response_format: unknown; messages: { content: string }[] });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.response_format).toEqual(VERDICT_FORMAT);
    // The LLM wrote from the agent's result, which it was given.
    expect(seen[0]!.messages.at(-1)!.content).toContain('Agent result (search_agent)');

    const stream = await openai.chat.completions.create({
      model: 'tessera/search_agent',
      messages: [{ role: 'user', content: 'Is merge insert an upsert?' }],
      response_format: VERDICT_FORMAT,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(JSON.parse(text)).toEqual(content);
    expect((llm.requests.at(-1)!.body as { response_format: unknown }).response_format).toEqual(
      VERDICT_FORMAT,
    );
  });

  it('without an LLM: json_schema answers 503 llm_unavailable, json_object the agent result itself', async () => {
    const refused = await call(
      rt.url,
      'POST',
      '/v1/chat/completions',
      {
        model: 'tessera/search_agent',
        messages: [{ role: 'user', content: 'invoices' }],
        response_format: VERDICT_FORMAT,
      },
      { 'x-tessera-tenant': 'rival' },
    );
    expect(refused.status).toBe(503);
    expect(refused.body.detail.error).toBe('llm_unavailable');
    expect(refused.body.error).toEqual({
      message: refused.body.detail.message,
      type: 'llm_unavailable',
      code: '503',
    });
    // The official client shows the message, not "503 status code (no body)".
    const unavailable = (await client('rival')
      .chat.completions.create({
        model: 'tessera/search_agent',
        messages: [{ role: 'user', content: 'invoices' }],
        response_format: VERDICT_FORMAT,
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(unavailable).toBeInstanceOf(OpenAI.InternalServerError);
    expect(unavailable.status).toBe(503);
    expect(unavailable.message).toBe(`503 ${refused.body.detail.message}`);
    expect(unavailable.error).toMatchObject({ type: 'llm_unavailable', code: '503' });
    const object = await client('rival').chat.completions.create({
      model: 'tessera/search_agent',
      messages: [{ role: 'user', content: 'invoices' }],
      response_format: { type: 'json_object' },
    });
    const result = JSON.parse(object.choices[0]!.message.content!);
    expect(result.results[0].source_doc_id).toBe('rival-notes.md');
  });

  it("never shows one tenant another's conversations", async () => {
    const contextId = `shared_${Date.now().toString(36)}`;
    for (const tenant of ['acme', 'rival']) {
      await client(tenant).chat.completions.create({
        model: 'tessera/search_agent',
        messages: [{ role: 'user', content: `${tenant} asks about merge` }],
        metadata: { context_id: contextId },
      });
    }
    const acme = await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=acme`);
    const rival = await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=rival`);
    expect(acme.body.messages.map((m: { content: string }) => m.content)[0]).toBe('acme asks about merge');
    expect(rival.body.messages.map((m: { content: string }) => m.content)[0]).toBe('rival asks about merge');
    expect(acme.body.message_count).toBe(2);
    expect(rival.body.message_count).toBe(2);
    // Rival's answer searched rival's content only, with no history from acme's thread.
    expect(rival.body.messages[1].content).toContain('[rival-notes.md]');
    expect(rival.body.messages[1].content).not.toContain('lancedb-notes.md');
    const listed = await call(rt.url, 'GET', '/conversations?tenant_id=rival');
    expect(listed.body.threads.map((t: { title: string }) => t.title)).not.toContain('acme asks about merge');
    expect((await call(rt.url, 'DELETE', `/conversations/${contextId}?tenant_id=rival`)).status).toBe(200);
    expect((await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=acme`)).status).toBe(200);
  });

  it('survives a client that goes away mid-stream: the run is cancelled, nothing is stored', async () => {
    const contextId = `gone_${Date.now().toString(36)}`;
    slow.add('client leaves early');
    const controller = new AbortController();
    const response = await summaryStream('client leaves early', contextId, controller.signal);
    const reader = response.body!.getReader();
    const first = Buffer.from((await reader.read()).value!).toString();
    expect(first).toContain('"role":"assistant"');
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(rt.child.exitCode).toBeNull();
    expect((await call(rt.url, 'GET', '/health')).status).toBe(200);
    expect((await call(rt.url, 'GET', `/conversations/${contextId}?tenant_id=acme`)).status).toBe(404);
  });
});

/** The LLM's streamed call whose prompt holds `query`. */
const llmCallOf = (query: string) =>
  llm.requests.find(
    (seen) =>
      (seen.body as { stream?: boolean }).stream === true &&
      (seen.body as { messages: { content: string }[] }).messages.at(-1)!.content.includes(query),
  );

/**
 * Reads `response` until `token` shows, then leaves while the LLM is still writing (its 60-odd characters
 * take about 3 s), and waits for the LLM to see its request closed before it finished.
 */
async function leaveMidAnswer(question: string, response: Response, token: RegExp, leave: AbortController) {
  const reader = response.body!.getReader();
  let seen = '';
  while (!token.test(seen)) seen += Buffer.from((await reader.read()).value!).toString();
  expect(llmCallOf(question)!.answeredAt).toBeUndefined();
  leave.abort();
  await vi.waitFor(() => expect(llmCallOf(question)!.closedEarly).toBe(true), {
    timeout: 20_000,
    interval: 100,
  });
  expect(llmCallOf(question)!.answeredAt).toBeUndefined();
}

describe('token streaming of an answer the LLM writes (integration)', () => {
  it("streams the summarizer's tokens as the LLM writes them, and stores and returns the whole answer", async () => {
    const question = 'How are late fees charged on invoices?';
    paced.set(question, 150);
    const contextId = `tokens_${Date.now().toString(36)}`;
    const stream = await client('acme').chat.completions.create({
      model: 'tessera/summarizer_agent',
      messages: [{ role: 'user', content: question }],
      metadata: { context_id: contextId },
      stream: true,
    });
    const deltas: { text: string; at: number }[] = [];
    let last: unknown;
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content;
      if (text) deltas.push({ text, at: Date.now() });
      last = chunk;
    }
    const text = deltas.map((delta) => delta.text).join('');
    expect(text).toBe(`LLM summary for Request: ${question}`);
    // Token by token: many deltas, the first reaching the client while the LLM was still writing.
    expect(deltas.length).toBeGreaterThan(5);
    const call = llmCallOf(question)!;
    expect(call.answeredAt).toBeDefined();
    expect(deltas[0]!.at).toBeLessThan(call.answeredAt!);
    expect((last as { tessera: { result: { summary: string } } }).tessera.result.summary).toBe(text);
    const thread = await call_(`/conversations/${contextId}?tenant_id=acme`);
    expect(thread.body.messages.map((m: { content: string }) => m.content)).toEqual([question, text]);
    // Not streamed, the same answer from a whole call.
    const whole = await client('acme').chat.completions.create({
      model: 'tessera/summarizer_agent',
      messages: [{ role: 'user', content: question }],
    });
    expect(whole.choices[0]!.message.content).toBe(text);
  });

  it("streams a coding answer's explanation as written, then its files, the same text as the JSON answer", async () => {
    const ask = {
      model: 'tessera/coding_agent',
      messages: [{ role: 'user' as const, content: 'write a parser' }],
    };
    const whole = await client('acme').chat.completions.create(ask);
    const stream = await client('acme').chat.completions.create({ ...ask, stream: true });
    const deltas: string[] = [];
    for await (const chunk of stream)
      if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
    expect(deltas.join('')).toBe(whole.choices[0]!.message.content);
    expect(deltas.join('')).toMatch(
      /^A parser that reads "key=value" lines\.\n\nsrc\/parse\.ts:\n```typescript\n/,
    );
    // The explanation came token by token (pieces of 5 characters from the LLM).
    expect(deltas.slice(0, 3).every((delta) => delta.length <= 5)).toBe(true);
  });

  it("streams an orchestration's final answer over AG-UI, then tells its sub-agent calls", async () => {
    const key = await mint('acme');
    const agent = new HttpAgent({
      url: `${rt.url}/ag-ui/orchestrator_agent`,
      headers: { Authorization: `Bearer ${key.key}` },
      initialMessages: [{ id: 'u1', role: 'user', content: 'how does merge insert work' }],
    });
    const events: BaseEvent[] = [];
    const outcome = await agent.runAgent(
      { runId: 'run_orch' },
      { onEvent: ({ event }) => void events.push(event) },
    );
    const types = events.map((event) => String(event.type));
    expect(types.at(-1)).toBe('RUN_FINISHED');
    const text = events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => (event as unknown as { delta: string }).delta)
      .join('');
    expect(text).toBe('Merge insert upserts rows, the search step found.');
    expect(types.filter((type) => type === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(5);
    expect(types.indexOf('TEXT_MESSAGE_END')).toBeLessThan(types.indexOf('TOOL_CALL_START'));
    const start = events.find((event) => event.type === 'TOOL_CALL_START') as unknown as {
      toolCallName: string;
    };
    expect(start.toolCallName).toBe('search_agent');
    const reply = outcome.newMessages.find((m) => m.role === 'assistant') as {
      content?: string;
      toolCalls?: unknown[];
    };
    expect(reply.content).toBe(text);
    expect(reply.toolCalls).toHaveLength(1);
  });

  it('closes the LLM stream when the client goes away mid-answer, and stores nothing', async () => {
    const question = 'What happens when the reader leaves during the tokens?';
    paced.set(question, 400);
    const contextId = `left_${Date.now().toString(36)}`;
    const controller = new AbortController();
    const response = await summaryStream(question, contextId, controller.signal);
    await leaveMidAnswer(question, response, /"delta":\{"content":"[^"]/, controller);
    expect(rt.child.exitCode).toBeNull();
    expect((await call_(`/conversations/${contextId}?tenant_id=acme`)).status).toBe(404);
  });

  it('closes the LLM stream when an AG-UI client goes away mid-answer', async () => {
    const question = 'What if the AG-UI reader leaves during the tokens?';
    paced.set(question, 400);
    const key = await mint('acme');
    const controller = new AbortController();
    const response = await fetch(`${rt.url}/ag-ui/summarizer_agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
      body: JSON.stringify(runInput(question)),
      signal: controller.signal,
    });
    await leaveMidAnswer(question, response, /TEXT_MESSAGE_CONTENT/, controller);
  });

  it('streams the tokens as AG-UI TEXT_MESSAGE_CONTENT events through HttpAgent', async () => {
    const question = 'Which fees apply to invoices paid late?';
    paced.set(question, 150);
    const key = await mint('acme');
    const agent = new HttpAgent({
      url: `${rt.url}/ag-ui/summarizer_agent`,
      headers: { Authorization: `Bearer ${key.key}` },
      threadId: `thread_tokens_${Date.now().toString(36)}`,
      initialMessages: [{ id: 'u1', role: 'user', content: question }],
    });
    const events: { event: BaseEvent; at: number }[] = [];
    const outcome = await agent.runAgent(
      { runId: 'run_tokens' },
      { onEvent: ({ event }) => void events.push({ event, at: Date.now() }) },
    );
    const types = events.map(({ event }) => String(event.type));
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    const contents = events.filter(({ event }) => event.type === 'TEXT_MESSAGE_CONTENT');
    expect(contents.length).toBeGreaterThan(5);
    expect(contents[0]!.at).toBeLessThan(llmCallOf(question)!.answeredAt!);
    expect(types.indexOf('TEXT_MESSAGE_START')).toBeLessThan(types.indexOf('TEXT_MESSAGE_CONTENT'));
    expect(types.lastIndexOf('TEXT_MESSAGE_CONTENT')).toBeLessThan(types.indexOf('TEXT_MESSAGE_END'));
    expect(types).toContain('STATE_SNAPSHOT');
    const text = contents.map(({ event }) => (event as unknown as { delta: string }).delta).join('');
    expect(text).toBe(`LLM summary for Request: ${question}`);
    expect(outcome.newMessages.find((m) => m.role === 'assistant')?.content).toBe(text);
    const thread = await call_(`/conversations/${agent.threadId}?tenant_id=acme`);
    expect(thread.body.messages.map((m: { content: string }) => m.content)).toEqual([question, text]);
  });
});

async function mint(tenant: string, ttl?: number) {
  const minted = await call(rt.url, 'POST', '/admin/harness/keys', {
    tenant_id: tenant,
    ...(ttl ? { ttl } : {}),
  });
  expect(minted.status).toBe(201);
  return minted.body as { key_id: string; key: string; tenant_id: string; expires_at: string };
}

const runInput = (question: string, extra: Record<string, unknown> = {}) => ({
  threadId: `thread_${Date.now().toString(36)}`,
  runId: 'run_1',
  messages: [{ id: 'm1', role: 'user', content: question }],
  tools: [],
  context: [],
  state: {},
  ...extra,
});

describe('AG-UI runs and harness keys (integration)', () => {
  it('mints keys with their expiry and stores only a hash', async () => {
    const key = await mint('acme');
    expect(key.key_id).toMatch(/^hk_[0-9a-f]{24}$/);
    expect(key.key.startsWith(`${key.key_id}.`)).toBe(true);
    expect(key.tenant_id).toBe('acme:acme');
    const ttl = Date.parse(key.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(3590_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
    const { DynamoHarnessKeyStore, sha256 } = await import('@tessera/chat');
    const stored = await new DynamoHarnessKeyStore().get(key.key_id);
    expect(stored).toMatchObject({ key_hash: sha256(key.key), tenant_id: 'acme:acme' });
    expect(JSON.stringify(stored)).not.toContain(key.key.split('.')[1]);
    for (const ttl of [0, 604_801, 1.5]) {
      expect((await call(rt.url, 'POST', '/admin/harness/keys', { tenant_id: 'acme', ttl })).status).toBe(
        422,
      );
    }
    expect((await call(rt.url, 'POST', '/admin/harness/keys', { tenant_id: 'ghost' })).status).toBe(404);
  });

  it("runs an agent for the key's tenant through @ag-ui/client's HttpAgent", async () => {
    const key = await mint('acme');
    const agent = new HttpAgent({
      url: `${rt.url}/ag-ui/search_agent`,
      headers: { Authorization: `Bearer ${key.key}` },
      threadId: `thread_${Date.now().toString(36)}`,
      initialMessages: [{ id: 'u1', role: 'user', content: 'merge insert upsert' }],
    });
    const events: BaseEvent[] = [];
    const outcome = await agent.runAgent(
      { runId: 'run_a' },
      { onEvent: ({ event }) => void events.push(event) },
    );
    const types = events.map((e) => String(e.type));
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(types).toContain('STATE_SNAPSHOT');
    expect(types.indexOf('TEXT_MESSAGE_START')).toBeLessThan(types.indexOf('TEXT_MESSAGE_CONTENT'));
    expect(types).toContain('TEXT_MESSAGE_END');
    const snapshot = events.find((e) => e.type === 'STATE_SNAPSHOT') as unknown as {
      snapshot: { hits: { source_doc_id: string }[] };
    };
    expect(snapshot.snapshot.hits[0]!.source_doc_id).toBe('lancedb-notes.md');
    const reply = outcome.newMessages.find((m) => m.role === 'assistant');
    expect(String(reply?.content)).toMatch(/^Found \d+ results?:/);
    // The run is a turn of the thread's conversation.
    const thread = await call(rt.url, 'GET', `/conversations/${agent.threadId}?tenant_id=acme`);
    expect(thread.body.message_count).toBe(2);
  });

  it('sends every frame with an id line, as @ag-ui/encoder encodes it', async () => {
    const key = await mint('acme');
    const response = await fetch(`${rt.url}/ag-ui/text_analysis_agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
      body: JSON.stringify(runInput('Grace Hopper worked on COBOL in Philadelphia.')),
    });
    expect(response.status).toBe(200);
    const blocks = (await response.text()).split('\n\n').filter(Boolean);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    blocks.forEach((block, i) => {
      const [id, data] = block.split('\n');
      expect(id).toBe(`id: ${i}`);
      expect(data!.startsWith('data: {')).toBe(true);
    });
  });

  it('refuses without a key, with an unknown, revoked or expired one, and for another tenant', async () => {
    const post = (agent: string, headers: Record<string, string>, body: unknown = runInput('merge')) =>
      fetch(`${rt.url}/ag-ui/${agent}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post('search_agent', {})).status).toBe(401);
    expect(
      (await post('search_agent', { authorization: 'Bearer hk_000000000000000000000000.nope' })).status,
    ).toBe(401);
    const revoked = await mint('acme');
    expect((await post('search_agent', { authorization: `Bearer ${revoked.key}` })).status).toBe(200);
    const revoke = await call(rt.url, 'DELETE', `/admin/harness/keys/${revoked.key_id}`);
    expect(revoke.body).toEqual({ status: 'revoked', key_id: revoked.key_id });
    const after = await post('search_agent', { authorization: `Bearer ${revoked.key}` });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ detail: 'The harness key was revoked' });
    expect((await call(rt.url, 'DELETE', '/admin/harness/keys/hk_000000000000000000000000')).status).toBe(
      404,
    );

    const expiring = await mint('acme', 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const expired = await post('search_agent', { authorization: `Bearer ${expiring.key}` });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ detail: 'The harness key expired' });

    const acme = await mint('acme');
    const foreign = await post(
      'search_agent',
      { authorization: `Bearer ${acme.key}` },
      runInput('invoices', { forwardedProps: { tenant_id: 'rival' } }),
    );
    expect(foreign.status).toBe(403);
    // A key of rival searches rival's content only.
    const rival = await mint('rival');
    const answer = await post('search_agent', { authorization: `Bearer ${rival.key}` }, runInput('merge'));
    const text = await answer.text();
    expect(text).toContain('rival-notes.md');
    expect(text).not.toContain('lancedb-notes.md');
  });

  it('answers RUN_ERROR once a failure comes after the stream opened, and 422 for a bad RunAgentInput', async () => {
    const key = await mint('rival');
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };
    const bad = await fetch(`${rt.url}/ag-ui/search_agent`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ threadId: 't', messages: 'no' }),
    });
    expect(bad.status).toBe(422);
    // An LLM that does not answer fails the summarizer after the run started.
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'broken' })).status).toBe(201);
    await call(rt.url, 'PUT', '/admin/tenants/broken/config/llm', {
      model: 'openai/none',
      api_base: 'http://127.0.0.1:9/v1',
      request_timeout: 1,
    });
    await feed('broken', 'b.md', 'Broken keeps its invoices in a drawer that nobody has opened for years.');
    const brokenKey = await mint('broken');
    const failed = await fetch(`${rt.url}/ag-ui/summarizer_agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${brokenKey.key}` },
      body: JSON.stringify(runInput('invoices', { forwardedProps: { tenant_id: 'broken' } })),
    });
    expect(failed.status).toBe(200);
    const events = (await failed.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => JSON.parse(block.split('\n')[1]!.slice(6)));
    expect(events[0].type).toBe('RUN_STARTED');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: '502' });
    expect(events.at(-1).message).toContain('did not answer');
  });
});

describe('tenant delete and chat (integration)', () => {
  it("removes the tenant's conversations and harness keys", async () => {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'brief' })).status).toBe(201);
    await client('brief').chat.completions.create({
      model: 'tessera/search_agent',
      messages: [{ role: 'user', content: 'anything' }],
      metadata: { context_id: 'kept' },
    });
    const key = await mint('brief');
    expect((await call(rt.url, 'GET', '/conversations?tenant_id=brief')).body.threads).toHaveLength(1);
    // The run's memory is written off the answer's path (its first deploys the tenant's memory schema): the
    // delete comes once it is there, so it removes that too rather than meeting a deploy under way.
    await vi.waitFor(
      async () =>
        expect((await call(rt.url, 'GET', '/admin/tenant/brief/memories')).body.total_count).toBe(1),
      { timeout: 30_000, interval: 200 },
    );
    const deleted = await call(rt.url, 'DELETE', '/admin/tenants/brief');
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const { DynamoConversationStore, DynamoHarnessKeyStore } = await import('@tessera/chat');
    expect(await new DynamoConversationStore().threads('brief:brief')).toEqual([]);
    expect(await new DynamoHarnessKeyStore().get(key.key_id)).toBeUndefined();
  });
});
