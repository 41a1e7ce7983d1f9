/**
 * Routes that take a JSON body and answer either JSON or a server-sent event stream (chat completions with
 * `stream: true`, AG-UI runs), as Lambda response-streaming handlers: a function URL in AWS, the runtime's
 * `awslambda` shim locally. Failures before the stream opens answer JSON in the spec's error shapes; once it
 * opened, the route itself ends it with a frame of its protocol.
 */
import type { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { parseJsonBody, type Reply } from './handler';
import { errorResponse, json } from './responses';
import { lambda, pathParameters, routePattern } from './sse';
import { validate } from './validation';

/** An open stream: raw frames, written in order; writes after the client went away are dropped. */
export interface FrameStream {
  /** Writes `text` as it is (one or more whole frames, each ending in a blank line). */
  write(text: string): Promise<void>;
  /** True once the client went away. */
  readonly closed: boolean;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

export interface StreamRequest<G, B, P> {
  /** What the route's guard answered (a key's tenant). */
  guard: G;
  body: B;
  path: P;
  event: APIGatewayProxyEventV2;
  context: Context | undefined;
  /** Aborts when the client goes away, before or after the stream opened. */
  signal: AbortSignal;
  /** Opens the stream (200, `text/event-stream`); call it once validation and lookups are done. */
  open(): FrameStream;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

const isReply = (value: unknown): value is Reply =>
  typeof value === 'object' && value !== null && (value as Reply).__reply === true;

/**
 * The handler of a route that streams on demand. `guard` runs first (authentication, before the body is
 * read); then the body and path are validated; then `fn` either returns an answer (JSON, 200 or a `reply`)
 * or opens the stream and writes it. `errorBody` adds to a JSON error answer's `{detail}` body (a protocol's
 * own error object beside it), never taking the detail away.
 */
export function streamRoute<G, const S extends { route: string; path?: z.ZodType; body?: z.ZodType }>(
  spec: S,
  fn: (request: StreamRequest<NoInfer<G>, Infer<S['body']>, Infer<S['path']>>) => Promise<unknown>,
  options: {
    guard?: (event: APIGatewayProxyEventV2) => Promise<G>;
    errorBody?: (status: number, body: Record<string, unknown>) => Record<string, unknown>;
  } = {},
) {
  const { names, pattern } = routePattern(spec.route);
  const handler = async (event: APIGatewayProxyEventV2, responseStream: Writable, lambdaContext: unknown) => {
    const context = lambdaContext as Context | undefined;
    const runtime = lambda()!;
    let stream: Writable | undefined;
    const controller = new AbortController();
    responseStream.on('close', () => controller.abort());
    const write = (text: string) =>
      new Promise<void>((resolve) => {
        if (!stream || stream.destroyed || stream.writableEnded) return resolve();
        stream.write(text, () => resolve());
      });
    const answer = async (status: number, headers: Record<string, string>, body: string) => {
      stream = runtime.HttpResponseStream.from(responseStream, { statusCode: status, headers });
      await write(body);
    };
    try {
      const guard = options.guard ? await options.guard(event) : (undefined as G);
      const body = spec.body ? validate('body', spec.body, parseJsonBody(event)) : undefined;
      const path = spec.path ? validate('path', spec.path, pathParameters(event, pattern, names)) : undefined;
      const result = await fn({
        guard,
        body: body as Infer<S['body']>,
        path: path as Infer<S['path']>,
        event,
        context,
        signal: controller.signal,
        open: () => {
          stream = runtime.HttpResponseStream.from(responseStream, {
            statusCode: 200,
            headers: {
              'content-type': 'text/event-stream',
              'cache-control': 'no-cache',
              connection: 'keep-alive',
              'x-accel-buffering': 'no',
            },
          });
          return {
            write,
            get closed() {
              return controller.signal.aborted;
            },
            signal: controller.signal,
          };
        },
      });
      if (!stream) {
        const response = isReply(result)
          ? json(result.status, result.body, result.headers)
          : json(200, result);
        await answer(response.statusCode, response.headers as Record<string, string>, response.body);
      }
    } catch (error) {
      if (!stream) {
        let response = errorResponse(error, { route: spec.route });
        if (options.errorBody) {
          const body = JSON.parse(response.body) as Record<string, unknown>;
          response = json(response.statusCode, {
            ...options.errorBody(response.statusCode, body),
            detail: body.detail,
          });
        }
        await answer(response.statusCode, response.headers as Record<string, string>, response.body);
      }
    } finally {
      (stream ?? responseStream).end();
    }
  };
  return lambda()?.streamifyResponse(handler) ?? handler;
}
