/**
 * The local API Gateway: matches each request against the route table, turns it into the same
 * API Gateway v2 (HTTP API) event AWS sends, and calls the route's Lambda handler.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { BadRequestError, log, MAX_BINARY_BODY_BYTES } from '@tessera/core';
import {
  errorResponse,
  type HttpResponse,
  MAX_BODY_BYTES,
  methodNotAllowedResponse,
  payloadTooLargeResponse,
} from '@tessera/http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiActivity } from './activity';
import { isStreamingHandler, lambdaContext, ResponseStream } from './lambda-shim';

export interface LoadedRoute {
  method: string;
  path: string;
  handlerName: string;
  handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;
  timeoutSeconds: number;
}

interface CompiledRoute extends LoadedRoute {
  pattern: RegExp;
  params: string[];
}

function compile(route: LoadedRoute): CompiledRoute {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const match = /^\{([A-Za-z0-9_]+)(\+)?\}$/.exec(segment);
      if (!match) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(match[1]!);
      return match[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  // A trailing slash names the same resource: `/search/` is `/search`.
  return { ...route, pattern: new RegExp(`^${source.replace(/\/$/, '')}/?$`), params };
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i;

function eventFor(
  req: IncomingMessage,
  url: URL,
  route: CompiledRoute | undefined,
  pathParameters: Record<string, string> | undefined,
  body: Buffer,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const isText = TEXT_TYPES.test(headers['content-type'] ?? 'text/plain');
  const now = new Date();
  const routeKey = route ? `${route.method} ${route.path}` : '$default';
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: req.headers.cookie?.split(';').map((c) => c.trim()),
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function send(res: ServerResponse, result: unknown): void {
  // API Gateway's rule: a result without statusCode is a 200 JSON body.
  const structured =
    typeof result === 'object' && result !== null && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) };
  const headers: Record<string, string | string[]> = { ...(structured.headers as Record<string, string>) };
  if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
  const body = structured.body
    ? Buffer.from(structured.body, structured.isBase64Encoded ? 'base64' : 'utf8')
    : Buffer.alloc(0);
  headers['content-length'] = String(body.length);
  res.writeHead(structured.statusCode ?? 200, headers);
  res.end(body);
}

function sendJson(res: ServerResponse, response: HttpResponse): void {
  send(res, response);
}

/**
 * The body, or 'too-large' when it would not fit in a Lambda request as API Gateway passes it on (a binary
 * body base64-encoded, as eventFor encodes it); `gone` when the client hung up before sending all of it
 * (nobody is left to answer).
 */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large' | 'gone'> {
  const binary = !TEXT_TYPES.test(req.headers['content-type'] ?? 'text/plain');
  const limit = binary ? MAX_BINARY_BODY_BYTES : MAX_BODY_BYTES;
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd);
      resolve('too-large');
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req
      .on('data', onData)
      .once('end', onEnd)
      .once('error', () => resolve('gone'));
  });
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

async function invokeStreaming(
  route: CompiledRoute,
  event: APIGatewayProxyEventV2,
  context: Context,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const stream = new ResponseStream({
    open(metadata) {
      const headers: Record<string, string | string[]> = {};
      // Hop-by-hop headers are the connection's, not the handler's (a function URL drops them too): a
      // handler's `connection: keep-alive` must not keep open a connection its client asked to close.
      for (const [name, value] of Object.entries(metadata.headers ?? {})) {
        if (!HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
      }
      if (metadata.cookies?.length) headers['set-cookie'] = metadata.cookies;
      res.writeHead(metadata.statusCode ?? 200, headers);
      res.flushHeaders();
    },
    write(chunk, done) {
      if (res.destroyed) return done(new Error('client disconnected'));
      res.write(chunk, (error) => done(error ?? null));
    },
    end() {
      res.end();
    },
  });
  // A write that fails because the client went away fails its callback, which the handler sees; the error
  // the stream then also emits must not end the process, whether or not the handler listens for it.
  stream.on('error', () => undefined);
  // A client that goes away ends the handler's stream, as Lambda does when the connection closes.
  req.socket.once('close', () => {
    // Destroyed without an error: the handler sees 'close' and failed writes, not an unhandled 'error'.
    if (!stream.writableFinished) stream.destroy();
  });
  await (route.handler as unknown as (e: unknown, s: ResponseStream, c: Context) => Promise<unknown>)(
    event,
    stream,
    context,
  );
  if (!stream.writableEnded && !stream.destroyed) stream.end();
}

/** Clients read an answer only once their upload is done: drain a while, then cut the connection. */
const DRAIN_LIMIT_BYTES = 8 * MAX_BODY_BYTES;

/**
 * Answers 413 at once, whole, but ends the response only once the client stopped sending: a connection
 * closed while the client still writes is reset, and a reset loses the answer the client has not read yet
 * (Node closes a `Connection: close` request's socket as soon as its response ends).
 */
function refuseLargeBody(req: IncomingMessage, res: ServerResponse, path: string): void {
  const answer = payloadTooLargeResponse(path);
  const body = Buffer.from(answer.body);
  res.writeHead(413, { ...answer.headers, 'content-length': String(body.length), connection: 'close' });
  res.write(body);
  let drained = 0;
  req.once('error', () => res.destroy());
  req.once('end', () => res.end());
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) res.destroy();
  });
  req.resume();
}

function decodeParams(names: string[], match: RegExpExecArray): Record<string, string> | 'malformed' {
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
  } catch {
    return 'malformed';
  }
}

/** What Node's HTTP parser refused, as the status and message the client gets. */
function clientErrorAnswer(error: NodeJS.ErrnoException & { reason?: string }): [number, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request header fields too large: the request line and headers must fit in 16 KB'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request timeout: the request did not arrive in time'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'Chunk extensions too large'];
    default: {
      // llhttp's reasons are fixed texts ("Invalid character in chunk size", "Content-Length can't be present
      // with Transfer-Encoding"); nothing of the request is echoed.
      const reason = typeof error.reason === 'string' ? error.reason.replace(/[^\x20-\x7e]/g, '') : '';
      return [400, `Malformed HTTP request${reason ? `: ${reason}` : ''}`];
    }
  }
}

/**
 * Answers a request Node's parser refused (over-long URL or headers, bad chunked encoding, Content-Length
 * with Transfer-Encoding, a request that never finished) in the plain error shape, where Node would answer an
 * empty body; then closes the connection, whose framing can no longer be trusted.
 */
export function answerClientError(error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, detail] = clientErrorAnswer(error);
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function createApiServer(
  routes: LoadedRoute[],
  fallback: LoadedRoute['handler'],
  activity?: ApiActivity,
): Server {
  const compiled = routes.map(compile);
  const server = http.createServer(async (req, res) => {
    const end = activity?.begin();
    res.once('close', () => end?.());
    const url = new URL(req.url ?? '/', 'http://localhost');
    const candidates = compiled
      .map((route) => ({ route, match: route.pattern.exec(url.pathname) }))
      .filter((c) => c.match !== null);
    const hit = candidates.find((c) => c.route.method === req.method);
    try {
      if (!hit && candidates.length > 0) {
        req.resume();
        return sendJson(res, methodNotAllowedResponse([...new Set(candidates.map((c) => c.route.method))]));
      }
      const body = await readBody(req);
      if (body === 'gone') return void res.destroy();
      if (body === 'too-large') return refuseLargeBody(req, res, url.pathname);
      const pathParameters = hit ? decodeParams(hit.route.params, hit.match!) : undefined;
      if (pathParameters === 'malformed') {
        return sendJson(
          res,
          errorResponse(new BadRequestError('Malformed percent-encoding in the request path')),
        );
      }
      const event = eventFor(req, url, hit?.route, pathParameters, body);
      if (!hit) return send(res, await fallback(event, lambdaContext('fallback', 30)));
      const context = lambdaContext(
        hit.route.handlerName.replace(/[^A-Za-z0-9-_]/g, '-'),
        hit.route.timeoutSeconds,
      );
      if (isStreamingHandler(hit.route.handler)) {
        end?.();
        await invokeStreaming(hit.route, event, context, req, res);
        return;
      }
      send(res, await hit.route.handler(event, context));
    } catch (error) {
      log.error('handler invocation failed', { path: url.pathname, error });
      if (!res.headersSent) sendJson(res, errorResponse(error));
      else res.end();
    }
  });
  server.on('clientError', answerClientError);
  // Longer than clients keep idle connections (undici: 4 s), so the server is never the one closing a
  // connection a client is reusing at that moment, which the client would see as a reset.
  server.keepAliveTimeout = 65_000;
  return server;
}
