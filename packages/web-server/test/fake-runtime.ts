/**
 * A runtime on loopback for the web server's tests: it records each request (method, path, headers, body
 * bytes, and when its connection closed) and answers through the test's handler, which may stream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWebServer, type WebServer, type WebServerOptions } from '../src/server';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Resolves when the exchange closed: `true` when the other side went away before the answer ended. */
  closed: Promise<boolean>;
}

export type Handler = (seen: Seen, res: ServerResponse) => void | Promise<void>;

export interface FakeRuntime {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

export async function startFakeRuntime(handler: Handler): Promise<FakeRuntime> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const closed = new Promise<boolean>((resolve) => res.once('close', () => resolve(!res.writableEnded)));
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        closed,
      };
      seen.push(entry);
      Promise.resolve(handler(entry, res)).catch((error: Error) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(error.message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers JSON. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A port nothing listens on: a runtime that does not answer. */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A web server on a loopback port in front of `runtimeUrl`. */
export function loopbackWebServer(
  runtimeUrl: string,
  options: Partial<WebServerOptions> = {},
): Promise<WebServer> {
  return startWebServer({ port: 0, host: '127.0.0.1', runtimeUrl, harnessKeyTtlS: 600, ...options });
}
