/**
 * Chat when the conversation store goes away: a second runtime answers from the first one's emulators, and
 * the first one (with its DynamoDB) is stopped while the answer is written (the loopback LLM stops it when
 * the call arrives). JSON answers 503 naming the conversations; a stream ends with one error frame. A
 * file of its own (it ends its store), run against the runtime's own emulators only.
 */
import { openAIChat, startServer, type TestServer } from '@tessera/testing';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const opened: { stop(): Promise<unknown> }[] = [];

afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.stop();
});

/** A store runtime, a second one on its emulators, and an LLM that stops the first on its first call. */
async function outageSetup(): Promise<{ second: RuntimeProcess; llm: TestServer }> {
  let first: RuntimeProcess | undefined;
  const llm = await startServer(
    openAIChat(async () => {
      await first?.stop();
      return { content: { summary: 'A summary nobody will store.' } };
    }),
  );
  opened.push({ stop: () => llm.close() });
  first = await spawnRuntime();
  opened.push(first);
  expect((await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  await call(first.url, 'PUT', '/admin/tenants/acme/config/llm', {
    model: 'openai/chat',
    api_base: `${llm.url}/v1`,
  });
  const second = await spawnRuntime({
    env: { AWS_ENDPOINT_URL: first.emulatorUrl!, TESSERA_DATA_DIR: first.dataDir },
  });
  opened.push(second);
  return { second, llm };
}

/**
 * A search (over nothing: the tenant has no content) whose answer the tenant's LLM writes under the caller's
 * format: the LLM's call is where the store goes away.
 */
const request = {
  model: 'tessera/search_agent',
  messages: [{ role: 'user' as const, content: 'What does merge insert do?' }],
  metadata: { context_id: 'outage_thread' },
  response_format: {
    type: 'json_schema' as const,
    json_schema: {
      name: 'answer',
      strict: true,
      schema: {
        type: 'object',
        properties: { summary: { type: 'string' } },
        required: ['summary'],
        additionalProperties: false,
      },
    },
  },
};

describe('chat when the conversation store fails (integration)', () => {
  it('answers 503 service_unavailable naming the conversations, never an answer it could not store', async () => {
    const { second } = await outageSetup();
    const answer = await call(second.url, 'POST', '/v1/chat/completions', request, {
      'x-tessera-tenant': 'acme',
    });
    expect(answer.status).toBe(503);
    // The spec's detail, and beside it the OpenAI-style error the openai client reads (as on a stream).
    expect(answer.body).toEqual({
      detail: {
        error: 'service_unavailable',
        service: 'conversations',
        message: 'The conversation store did not answer; retry.',
      },
      error: {
        message: 'The conversation store did not answer; retry.',
        type: 'service_unavailable',
        code: '503',
      },
    });
    expect((await call(second.url, 'GET', '/health')).status).toBeLessThan(600);
    expect(second.child.exitCode).toBeNull();
  }, 120_000);

  it('ends a stream with one error frame, which the openai client raises', async () => {
    const { second } = await outageSetup();
    const response = await fetch(`${second.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tessera-tenant': 'acme' },
      body: JSON.stringify({ ...request, stream: true }),
    });
    expect(response.status).toBe(200);
    const frames = (await response.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => block.slice('data: '.length));
    expect(frames).not.toContain('[DONE]');
    const errors = frames.map((frame) => JSON.parse(frame)).filter((data) => data.error);
    expect(errors).toEqual([
      {
        error: {
          message: 'The conversation store did not answer; retry.',
          type: 'service_unavailable',
          code: '503',
        },
        detail: {
          error: 'service_unavailable',
          service: 'conversations',
          message: 'The conversation store did not answer; retry.',
        },
      },
    ]);
    // The last frame is the error; nothing of the answer was sent.
    expect(JSON.parse(frames.at(-1)!).error).toBeDefined();
    expect(frames.some((frame) => frame.includes('A summary nobody will store.'))).toBe(false);
  }, 120_000);

  it('answers the openai client a stream error it raises as an APIError', async () => {
    const { second } = await outageSetup();
    const openai = new OpenAI({
      baseURL: `${second.url}/v1`,
      apiKey: 'unused',
      defaultHeaders: { 'X-Tessera-Tenant': 'acme' },
      maxRetries: 0,
    });
    const stream = await openai.chat.completions.create({ ...request, stream: true });
    const failure = await (async () => {
      for await (const _ of stream) {
        // reading until the error frame
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain('The conversation store did not answer');
  }, 120_000);
});
