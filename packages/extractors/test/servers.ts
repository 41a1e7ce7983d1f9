/**
 * Loopback HTTP servers speaking the model contracts the document extractors call: a GLiNER sidecar
 * (`POST /predict_entities`) and an OpenAI-compatible `POST /v1/chat/completions` that refuses any request
 * without a strict `json_schema` response format, as a structured-output server would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** An answer: status and JSON or raw text, optionally after a delay; or no answer at all. */
export type Reply = { status: number; json?: unknown; text?: string; delayMs?: number } | 'hang';

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Most requests open at the same time. */
  maxInFlight: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export async function startServer(
  reply: (request: SeenRequest, count: number) => Reply | Promise<Reply>,
): Promise<TestServer> {
  const state: TestServer = { url: '', requests: [], maxInFlight: 0, close: async () => {} };
  let inFlight = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        // kept as text
      }
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      state.requests.push(seen);
      let answer: Reply;
      try {
        answer = await reply(seen, state.requests.length);
      } catch (error) {
        // An assertion inside the fake fails the request loudly, so the test sees it.
        answer = { status: 418, json: { error: { message: `fake server assertion: ${String(error)}` } } };
      }
      if (answer === 'hang') return;
      const { status, json, text, delayMs } = answer;
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      inFlight--;
      res.writeHead(status, { 'content-type': json !== undefined ? 'application/json' : 'text/plain' });
      res.end(json !== undefined ? JSON.stringify(json) : (text ?? ''));
    });
  });
  state.url = await listen(server);
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A loopback URL with nothing listening: a port the system just handed out and that was closed again. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}

/** Starts servers for a test file; each is closed after its test. */
export function useServers(): { start(...args: Parameters<typeof startServer>): Promise<TestServer> } {
  const open: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return {
    async start(...args) {
      const server = await startServer(...args);
      open.push(server);
      return server;
    },
  };
}

/** The chat request's messages, response format and sampling settings. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  seed?: number;
  response_format?: {
    type: string;
    json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> };
  };
}

/** What the fake model does with one chat request: answer content (JSON-encoded unless a string), or a raw reply. */
export type ChatReply = { content: unknown; finish_reason?: string } | Reply;

/**
 * An OpenAI-compatible chat server. Requests to another path get 404; a request without a strict `json_schema`
 * response format gets 400, as from a server that enforces structured output.
 */
export function openAIChat(
  answer: (request: ChatRequest, seen: SeenRequest, count: number) => ChatReply | Promise<ChatReply>,
): (seen: SeenRequest, count: number) => Promise<Reply> {
  return async (seen, count) => {
    if (seen.method !== 'POST' || seen.url !== '/v1/chat/completions') {
      return { status: 404, json: { error: { message: `no route ${seen.method} ${seen.url}` } } };
    }
    const request = seen.body as ChatRequest;
    const format = request.response_format;
    if (format?.type !== 'json_schema' || format.json_schema?.strict !== true || !format.json_schema.schema) {
      return { status: 400, json: { error: { message: 'response_format must be a strict json_schema' } } };
    }
    const reply = await answer(request, seen, count);
    if (reply === 'hang' || 'status' in reply) return reply;
    const content = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    return {
      status: 200,
      json: {
        id: `chatcmpl-${count}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: request.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null },
            finish_reason: reply.finish_reason ?? 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      },
    };
  };
}

/** The user message of a chat request. */
export function userMessage(request: ChatRequest): string {
  return request.messages.find((message) => message.role === 'user')?.content ?? '';
}

/** The text between the `"""` fences of the user message. */
export function promptText(request: ChatRequest): string {
  const match = /"""\n([\s\S]*)\n"""/.exec(userMessage(request));
  return match ? match[1]! : '';
}

/** The error a call fails with; throws if it succeeds. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}
