/** Helpers shared by the encoder tests: vector maths and small contract-speaking HTTP servers on 127.0.0.1. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { MultiVector } from '../src/index';
import { TOKEN_DIM } from '../src/index';

export function dot(a: Float32Array, b: Float32Array, aOffset = 0, bOffset = 0, dim = a.length): number {
  let sum = 0;
  for (let i = 0; i < dim; i++) sum += a[aOffset + i]! * b[bOffset + i]!;
  return sum;
}

/** Late-interaction score: Σ over query tokens of the best dot product with any document token. */
export function maxSim(query: MultiVector, doc: MultiVector): number {
  let total = 0;
  for (let q = 0; q < query.tokens; q++) {
    let best = Number.NEGATIVE_INFINITY;
    for (let d = 0; d < doc.tokens; d++) {
      best = Math.max(best, dot(query.vectors, doc.vectors, q * TOKEN_DIM, d * TOKEN_DIM, TOKEN_DIM));
    }
    total += doc.tokens ? best : 0;
  }
  return total;
}

export function rowNorms(vectors: Float32Array, dim: number): number[] {
  const norms: number[] = [];
  for (let start = 0; start < vectors.length; start += dim) {
    norms.push(Math.sqrt(dot(vectors, vectors, start, start, dim)));
  }
  return norms;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** What a test server does with one request: answer with status and JSON (or text), or never answer. */
export type Reply = { status: number; json?: unknown; text?: string } | 'hang';

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startServer(
  reply: (request: SeenRequest, count: number) => Reply,
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: raw ? JSON.parse(raw) : null,
      };
      requests.push(seen);
      const answer = reply(seen, requests.length);
      if (answer === 'hang') return;
      const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? '');
      res.writeHead(answer.status, {
        'content-type': answer.json !== undefined ? 'application/json' : 'text/plain',
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL with nothing listening: a port the system just handed out and that was closed again. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A deterministic non-normalized row of `dim` floats whose signs alternate in a known pattern. */
export function patternRow(seed: number, dim: number): number[] {
  return Array.from({ length: dim }, (_, i) => ((i * 7 + seed) % 5) - 2 + 0.5);
}

/** Starts test servers for a test file; each is closed after its test. */
export function useServer(): { start(...args: Parameters<typeof startServer>): Promise<TestServer> } {
  let current: TestServer | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    async start(...args) {
      current = await startServer(...args);
      return current;
    },
  };
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
