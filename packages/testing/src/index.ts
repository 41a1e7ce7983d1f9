/**
 * Loopback HTTP servers for tests of clients that call model servers and runtimes: each records the requests
 * it saw and answers with what the test says (JSON, text, after a delay, or never).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export { type ChatReply, type ChatRequest, openAIChat } from './openai';
export {
  decodeJsonTraces,
  decodeProtobufTraces,
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from './otlp';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The body's bytes as received (multipart uploads, binary payloads). */
  raw: Buffer;
  /** When the answer's last byte was written (`Date.now()`); unset while it is written or when it never was. */
  answeredAt?: number;
  /** The client closed the connection before the answer was complete (a streamed answer cut short). */
  closedEarly?: boolean;
}

/** Server-sent events: each `data: <JSON>`, `intervalMs` apart (the first one at once), then `data: [DONE]`. */
export interface StreamReply {
  status: number;
  events: unknown[];
  intervalMs?: number;
}

/** An answer: status and JSON or raw text, optionally after a delay; server-sent events; or no answer at all. */
export type Reply =
  | { status: number; json?: unknown; text?: string; delayMs?: number }
  | StreamReply
  | 'hang';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `reply`'s events as they would stream, stopping when the client goes away. */
async function writeEvents(res: ServerResponse, reply: StreamReply): Promise<void> {
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  res.writeHead(reply.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (const [i, event] of reply.events.entries()) {
    if (i > 0 && reply.intervalMs) await sleep(reply.intervalMs);
    if (gone) return;
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  }
  if (!gone) res.end('data: [DONE]\n\n');
}

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
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        // kept as text
      }
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        raw: bytes,
      };
      state.requests.push(seen);
      let answer: Reply;
      try {
        answer = await reply(seen, state.requests.length);
      } catch (error) {
        // An assertion inside the fake fails the request loudly, so the test sees it.
        answer = { status: 418, json: { error: { message: `fake server assertion: ${String(error)}` } } };
      }
      res.on('finish', () => {
        seen.answeredAt = Date.now();
      });
      res.on('close', () => {
        if (!res.writableFinished) seen.closedEarly = true;
      });
      if (answer === 'hang') return;
      if ('events' in answer) {
        await writeEvents(res, answer);
        inFlight--;
        return;
      }
      const { status, json, text, delayMs } = answer;
      if (delayMs) await sleep(delayMs);
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

/** The error a call fails with; throws if it succeeds. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}
