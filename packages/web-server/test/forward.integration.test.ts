/** The web server's forwarding against a loopback runtime: allowlist, headers, streams, disconnects, 502. */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebServer, type WebServer } from '../src/server';
import { closedPort, type FakeRuntime, json, startFakeRuntime } from './fake-runtime';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function serve(runtimeUrl: string, clientDir?: string): Promise<WebServer> {
  const server = await startWebServer({
    port: 0,
    host: '127.0.0.1',
    runtimeUrl,
    harnessKeyTtlS: 3600,
    clientDir,
  });
  cleanup.push(() => server.stop());
  return server;
}

async function fake(handler: Parameters<typeof startFakeRuntime>[0]): Promise<FakeRuntime> {
  const runtime = await startFakeRuntime(handler);
  cleanup.push(() => runtime.close());
  return runtime;
}

/** Reads a stream's `data:` frames as they arrive, with the time each came. */
async function* frames(body: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) yield { data: JSON.parse(data) as { n: number; sent: number }, at: performance.now() };
      end = buffer.indexOf('\n\n');
    }
  }
}

describe('web server forwarding', () => {
  it('forwards an allowlisted request with its method, path, query and body, and answers what the runtime answers', async () => {
    const runtime = await fake((seen, res) =>
      json(res, 201, { echoed: seen.url, method: seen.method, body: seen.body.toString() }),
    );
    const web = await serve(runtime.url);
    const answer = await fetch(`${web.url}/ui-api/runtime/search/?debug=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'keys', tenant_id: 'acme:prod' }),
    });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({
      echoed: '/search/?debug=1',
      method: 'POST',
      body: '{"query":"keys","tenant_id":"acme:prod"}',
    });
    expect(runtime.seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('passes the runtime error status and body through unchanged', async () => {
    const runtime = await fake((_, res) => json(res, 404, { detail: "Tenant 'acme:nope' not registered." }));
    const web = await serve(runtime.url);
    const answer = await fetch(`${web.url}/ui-api/runtime/graph/stats?tenant_id=acme:nope`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ detail: "Tenant 'acme:nope' not registered." });
  });

  it('answers 404 for routes outside the allowlist without reaching the runtime', async () => {
    const runtime = await fake((_, res) => json(res, 200, { reached: true }));
    const web = await serve(runtime.url);
    const refused: [string, string][] = [
      ['POST', '/ui-api/runtime/admin/tenants'],
      ['DELETE', '/ui-api/runtime/admin/tenants/acme:prod'],
      ['POST', '/ui-api/runtime/admin/harness/keys'],
      ['POST', '/ui-api/runtime/graph/upsert'],
      ['GET', '/ui-api/runtime/admin/schemas/drift'],
      ['GET', '/ui-api/runtime/graph/%2e%2e/admin/schemas/drift'],
      ['GET', '/ui-api/runtime/graph/stats%2F..%2F..%2Fadmin%2Fschemas%2Fdrift'],
      ['GET', '/ui-api/runtime/'],
      ['GET', '/ui-api/other'],
    ];
    for (const [method, path] of refused) {
      const answer = await fetch(`${web.url}${path}`, { method });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(await answer.json()).toEqual({ detail: 'Not Found' });
    }
    expect(runtime.seen).toHaveLength(0);
  });

  it('never forwards hop-by-hop headers, the browser credentials or x-authz-* headers, and keeps Last-Event-ID', async () => {
    const runtime = await fake((_, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'keep-alive, x-hop',
        'keep-alive': 'timeout=5',
        'x-hop': 'hop',
        'x-request-id': 'r1',
      });
      res.end('{}');
    });
    const web = await serve(runtime.url);
    await new Promise<void>((resolve, reject) => {
      const req = request(
        `${web.url}/ui-api/runtime/events/ingestion/ingest_1`,
        {
          headers: {
            connection: 'keep-alive, x-private',
            'keep-alive': 'timeout=5',
            'x-private': 'secret',
            te: 'trailers',
            'proxy-authorization': 'Basic eA==',
            cookie: 'session=1',
            authorization: 'Bearer browser',
            'x-authz-user-id': 'acme:other',
            'X-Authz-User-Groups': 'admin',
            'last-event-id': '41',
            accept: 'text/event-stream',
          },
        },
        (res) => {
          expect(res.headers['x-hop']).toBeUndefined();
          expect(res.headers['x-request-id']).toBe('r1');
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
    const headers = runtime.seen[0]!.headers;
    for (const name of [
      'x-private',
      'te',
      'proxy-authorization',
      'cookie',
      'authorization',
      'x-authz-user-id',
      'x-authz-user-groups',
    ])
      expect(headers[name], name).toBeUndefined();
    expect(headers['keep-alive']).toBeUndefined();
    expect(headers['last-event-id']).toBe('41');
    expect(headers.accept).toBe('text/event-stream');
    expect(headers.host).toBe(new URL(runtime.url).host);
  });

  it('answers 502 Runtime unavailable when the runtime does not answer, and /healthz stays ok', async () => {
    const web = await serve(await closedPort());
    for (const path of [
      '/ui-api/runtime/health',
      '/ui-api/runtime/search/profiles?tenant_id=a',
      '/ui-api/agents',
    ]) {
      const answer = await fetch(`${web.url}${path}`);
      expect(answer.status, path).toBe(502);
      expect(await answer.json()).toEqual({ detail: 'Runtime unavailable' });
    }
    const upload = await fetch(`${web.url}/ui-api/runtime/ingestion/upload`, {
      method: 'POST',
      body: 'x'.repeat(1000),
    });
    expect(upload.status).toBe(502);
    const health = await fetch(`${web.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it("answers /ui-api/agents with the runtime's GET /agents", async () => {
    const registry = {
      agents: [
        {
          name: 'search_agent',
          url: 'http://x',
          capabilities: ['search'],
          modalities: ['text'],
          enabled: true,
          health_status: 'unknown',
        },
      ],
      count: 1,
    };
    const runtime = await fake((seen, res) =>
      seen.url === '/agents' ? json(res, 200, registry) : json(res, 404, { detail: 'Not Found' }),
    );
    const web = await serve(runtime.url);
    const answer = await fetch(`${web.url}/ui-api/agents`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual(registry);
    expect(runtime.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual(['GET /agents']);
  });

  it('streams an upload body to the runtime intact', async () => {
    const runtime = await fake((seen, res) => json(res, 202, { bytes: seen.body.length }));
    const web = await serve(runtime.url);
    const file = new Uint8Array(6 * 1024 * 1024).map((_, i) => (i * 7) % 251);
    const form = new FormData();
    form.append('tenant_id', 'acme:prod');
    form.append('file', new Blob([file]), 'big.bin');
    const answer = await fetch(`${web.url}/ui-api/runtime/ingestion/upload`, { method: 'POST', body: form });
    expect(answer.status).toBe(202);
    const seen = runtime.seen[0]!;
    expect(seen.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const received = seen.body;
    // The file's bytes sit in the multipart body unchanged.
    expect(received.indexOf(Buffer.from(file))).toBeGreaterThan(0);
    expect(((await answer.json()) as { bytes: number }).bytes).toBe(received.length);
  });

  it('forwards server-sent events as the runtime writes them, unbuffered and untransformed', async () => {
    const count = 40;
    const runtime = await fake(async (_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      for (let n = 0; n < count; n++) {
        res.write(`id: ${n}\ndata: ${JSON.stringify({ n, sent: performance.now() })}\n\n`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      res.end();
    });
    const web = await serve(runtime.url);
    const answer = await fetch(`${web.url}/ui-api/runtime/events/ingestion/ingest_1`, {
      headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip, br' },
    });
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(answer.headers.get('content-encoding')).toBeNull();
    expect(answer.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(answer.headers.get('x-accel-buffering')).toBe('no');
    const delays: number[] = [];
    const seenNumbers: number[] = [];
    for await (const frame of frames(answer.body!)) {
      seenNumbers.push(frame.data.n);
      delays.push(frame.at - frame.data.sent);
    }
    expect(seenNumbers).toEqual([...Array(count).keys()]);
    // Each frame arrives as it is written: far below the 20 ms between frames, never batched.
    delays.sort((a, b) => a - b);
    expect(delays[Math.floor(delays.length / 2)]!).toBeLessThan(15);
    expect(runtime.seen[0]!.headers['accept-encoding']).toBe('identity');
  });

  it('closes the upstream request when the browser disconnects mid-stream', async () => {
    const runtime = await fake((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":0,"sent":0}\n\n');
      // Never ends by itself: only a disconnect closes it.
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), 50);
      res.once('close', () => clearInterval(heartbeat));
    });
    const web = await serve(runtime.url);
    const controller = new AbortController();
    const answer = await fetch(`${web.url}/ui-api/runtime/events/workflows/w1`, {
      signal: controller.signal,
    });
    const reader = answer.body!.getReader();
    await reader.read();
    controller.abort();
    const early = await Promise.race([
      runtime.seen[0]!.closed,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 3000)),
    ]);
    expect(early).toBe(true);
  });

  it('closes the upstream request when the browser disconnects before the runtime answers', async () => {
    const runtime = await fake(() => {
      // Never answers.
    });
    const web = await serve(runtime.url);
    const controller = new AbortController();
    const pending = fetch(`${web.url}/ui-api/runtime/graph/stats?tenant_id=a`, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(runtime.seen).toHaveLength(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    const early = await Promise.race([
      runtime.seen[0]!.closed,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 3000)),
    ]);
    expect(early).toBe(true);
  });

  it('ends the browser stream where the runtime broke it off, so the browser resumes it', async () => {
    const runtime = await fake((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 0\ndata: {"n":0,"sent":0}\n\n');
      setTimeout(() => res.socket?.destroy(), 100);
    });
    const web = await serve(runtime.url);
    const answer = await fetch(`${web.url}/ui-api/runtime/events/ingestion/ingest_1`);
    const received: number[] = [];
    for await (const frame of frames(answer.body!)) received.push(frame.data.n);
    expect(received).toEqual([0]);
    // The server keeps serving after the broken stream.
    expect((await fetch(`${web.url}/healthz`)).status).toBe(200);
  });

  it('stops with its streams open, closing their upstream requests', async () => {
    const runtime = await fake((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
    });
    const web = await startWebServer({
      port: 0,
      host: '127.0.0.1',
      runtimeUrl: runtime.url,
      harnessKeyTtlS: 60,
    });
    const answer = await fetch(`${web.url}/ui-api/runtime/events/queues?tenant_id=a`);
    await answer.body!.getReader().read();
    await web.stop();
    expect(await runtime.seen[0]!.closed).toBe(true);
  });
});
