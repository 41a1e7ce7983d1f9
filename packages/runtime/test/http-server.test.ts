import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type LoadedRoute } from '../src/http-server';
import { installAwsLambdaGlobal, type ResponseStream } from '../src/lambda-shim';

installAwsLambdaGlobal();
type Streaming = (event: unknown, response: ResponseStream) => Promise<void>;
const { awslambda } = globalThis as unknown as {
  awslambda: {
    streamifyResponse(handler: Streaming): LoadedRoute['handler'];
    HttpResponseStream: { from(stream: ResponseStream, metadata: object): ResponseStream };
  };
};

const seen: APIGatewayProxyEventV2[] = [];
const echo: LoadedRoute['handler'] = async (event) => {
  seen.push(event);
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    cookies: ['a=1', 'b=2'],
    body: JSON.stringify({
      path: event.pathParameters,
      query: event.queryStringParameters,
      body: event.body,
      b64: event.isBase64Encoded,
    }),
  };
};

let closedByClient = false;
const stream = awslambda.streamifyResponse(async (_event: unknown, response: ResponseStream) => {
  const out = awslambda.HttpResponseStream.from(response, {
    statusCode: 202,
    headers: { 'content-type': 'text/event-stream' },
  });
  out.on('error', () => {
    closedByClient = true;
  });
  for (let i = 0; i < 3; i++) {
    out.write(`data: ${i}\n\n`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  out.end();
});

const endless = awslambda.streamifyResponse(async (_event: unknown, response: ResponseStream) => {
  const out = awslambda.HttpResponseStream.from(response, {
    statusCode: 200,
    headers: { 'content-type': 'text/event-stream' },
  });
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => out.write('data: tick\n\n'), 10);
    out.on('close', () => {
      clearInterval(timer);
      closedByClient = true;
      resolve();
    });
  });
});

const route = (method: string, path: string, handler: LoadedRoute['handler']): LoadedRoute => ({
  method,
  path,
  handler,
  handlerName: `${method} ${path}`,
  timeoutSeconds: 30,
});

let server: Server;
let base: string;
beforeAll(async () => {
  server = createApiServer(
    [
      route('POST', '/things/{id}', echo),
      route('GET', '/files/{path+}', echo),
      route('GET', '/stream', stream),
      route('GET', '/endless', endless),
    ],
    async () => ({ statusCode: 404, body: JSON.stringify({ detail: 'Not Found' }) }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('createApiServer', () => {
  it('builds an API Gateway v2 event with path and query parameters, headers and a text body', async () => {
    const response = await fetch(`${base}/things/a%3Ab?x=1&x=2&y=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'c=1; d=2' },
      body: '{"k":1}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({
      path: { id: 'a:b' },
      query: { x: '1,2', y: '3' },
      body: '{"k":1}',
      b64: false,
    });
    const event = seen.at(-1)!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /things/{id}',
      rawPath: '/things/a%3Ab',
      rawQueryString: 'x=1&x=2&y=3',
      cookies: ['c=1', 'd=2'],
      requestContext: { http: { method: 'POST', path: '/things/a%3Ab' }, stage: '$default' },
    });
    expect(event.headers['content-type']).toBe('application/json');
  });

  it('base64-encodes a binary body and matches greedy path parameters', async () => {
    const response = await fetch(`${base}/files/a/b/c.png`, {
      method: 'GET',
    });
    expect(((await response.json()) as { path: unknown }).path).toEqual({ path: 'a/b/c.png' });
    const binary = await fetch(`${base}/things/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array([0, 255, 1]),
    });
    const answer = (await binary.json()) as { b64: boolean; body: string };
    expect(answer.b64).toBe(true);
    expect(Buffer.from(answer.body, 'base64')).toEqual(Buffer.from([0, 255, 1]));
  });

  it('answers 404 through the fallback and 405 with Allow for another method', async () => {
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
    const wrong = await fetch(`${base}/things/x`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('streams a response-streaming handler chunk by chunk with its metadata', async () => {
    const response = await fetch(`${base}/stream`);
    expect(response.status).toBe(202);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value).toString());
    }
    expect(chunks.join('')).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('ends a streaming handler whose client disconnects', async () => {
    closedByClient = false;
    const controller = new AbortController();
    const response = await fetch(`${base}/endless`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const deadline = Date.now() + 2000;
    while (!closedByClient && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closedByClient).toBe(true);
  });
});

/** Sends raw bytes and answers everything the server wrote back before it closed the connection. */
function rawExchange(port: number, request: string | Buffer, halfClose = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(answer) : reject(error),
    );
    socket.on('close', () => resolve(answer));
    socket.write(request, () => {
      if (halfClose) socket.end();
    });
    setTimeout(() => socket.destroy(), 3000).unref();
  });
}

/** The status line and JSON body of a raw HTTP answer. */
function parseRaw(answer: string): { status: number; type?: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    type: /^content-type: (.*)$/im.exec(head)?.[1],
    body: body ? JSON.parse(body) : undefined,
  };
}

describe('createApiServer given requests its HTTP parser refuses', () => {
  const port = () => (server.address() as AddressInfo).port;

  it('answers each refusal with a JSON body in the plain error shape, not an empty one', async () => {
    const cases: [string, string, number, RegExp][] = [
      ['an over-long URL', `GET /files/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, /too large/],
      [
        'over-long headers',
        `GET /files/a HTTP/1.1\r\nHost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`,
        431,
        /too large/,
      ],
      [
        'bad chunked encoding',
        'POST /things/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
        400,
        /^Malformed HTTP request: Invalid character in chunk size/,
      ],
      [
        'Content-Length with Transfer-Encoding',
        'POST /things/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
        400,
        /^Malformed HTTP request: .*Content-Length.*Transfer-Encoding|Transfer-Encoding.*Content-Length/,
      ],
      ['a garbage request line', '\u0000\u0001GARBAGE\r\n\r\n', 400, /^Malformed HTTP request/],
      [
        'two Content-Length headers',
        'POST /things/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
        400,
        /^Malformed HTTP request/,
      ],
    ];
    for (const [name, request, status, detail] of cases) {
      const answer = parseRaw(await rawExchange(port(), request));
      expect(answer.status, name).toBe(status);
      expect(answer.type, name).toBe('application/json');
      expect(answer.body, name).toEqual({ detail: expect.stringMatching(detail) });
    }
    // The server still answers.
    expect((await fetch(`${base}/files/a`)).status).toBe(200);
  });

  it('lets a client go that sends part of its body and hangs up, and goes on answering', async () => {
    for (const cut of [
      'POST /things/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      'POST /things/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc',
    ]) {
      await rawExchange(port(), cut, true);
    }
    expect((await fetch(`${base}/things/2`, { method: 'POST', body: '{}' })).status).toBe(200);
  });
});
