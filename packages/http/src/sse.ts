/**
 * Server-sent event routes as Lambda response-streaming handlers (a function URL in AWS, the runtime's
 * `awslambda` shim locally). Failures before the stream starts answer JSON in the spec's error shapes; once
 * it started, the route itself ends it with a frame.
 */

import type { Writable } from 'node:stream';
import type { SseStream } from '@tessera/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import { errorResponse } from './responses';
import { validate } from './validation';

export interface ResponseMetadata {
  statusCode: number;
  headers: Record<string, string>;
}

interface AwsLambdaGlobal {
  streamifyResponse(
    handler: (event: APIGatewayProxyEventV2, stream: Writable, context: unknown) => Promise<void>,
  ): unknown;
  HttpResponseStream: { from(stream: Writable, metadata: ResponseMetadata): Writable };
}

export const lambda = () => (globalThis as unknown as { awslambda?: AwsLambdaGlobal }).awslambda;

export interface SseRequest<P, Q> {
  path: P;
  query: Q;
  event: APIGatewayProxyEventV2;
  /** Opens the stream (status 200); call it once validation and lookups are done. */
  open(): SseStream;
  /** Answers 204 No Content instead: nothing is left to stream, and an `EventSource` stops reconnecting. */
  noContent(): void;
}

/** Path parameters from the event, or parsed from `rawPath` when the front (a function URL) gives none. */
export function pathParameters(
  event: APIGatewayProxyEventV2,
  pattern: RegExp,
  names: string[],
): Record<string, string> {
  if (event.pathParameters && Object.keys(event.pathParameters).length > 0)
    return event.pathParameters as Record<string, string>;
  const match = pattern.exec(event.rawPath);
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? '')]));
}

/** The path parameters' names of a route and a pattern reading them from a raw path. */
export function routePattern(route: string): { names: string[]; pattern: RegExp } {
  const names: string[] = [];
  const pattern = new RegExp(
    `^${route.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}/?$`,
  );
  return { names, pattern };
}

export function sseRoute<P extends z.ZodType, Q extends z.ZodType>(
  spec: { route: string; path: P; query: Q },
  fn: (request: SseRequest<z.output<P>, z.output<Q>>) => Promise<void>,
) {
  const { names, pattern } = routePattern(spec.route);
  const handler = async (event: APIGatewayProxyEventV2, responseStream: Writable) => {
    const runtime = lambda()!;
    let stream: Writable | undefined;
    const controller = new AbortController();
    responseStream.on('close', () => controller.abort());
    const write = (text: string) =>
      new Promise<void>((resolve) => {
        if (!stream || stream.destroyed || stream.writableEnded) return resolve();
        stream.write(text, () => resolve());
      });
    try {
      const path = validate('path', spec.path, pathParameters(event, pattern, names));
      const query = validate('query', spec.query, event.queryStringParameters ?? {});
      await fn({
        path,
        query,
        event,
        open: () => {
          stream = runtime.HttpResponseStream.from(responseStream, {
            statusCode: 200,
            headers: {
              'content-type': 'text/event-stream',
              'cache-control': 'no-cache',
              connection: 'keep-alive',
            },
          });
          return {
            event: (data, id, retryMs) =>
              write(
                `${id === undefined ? '' : `id: ${id}\n`}${retryMs === undefined ? '' : `retry: ${retryMs}\n`}` +
                  `data: ${JSON.stringify(data)}\n\n`,
              ),
            comment: (text) => write(`: ${text}\n\n`),
            get closed() {
              return controller.signal.aborted;
            },
            signal: controller.signal,
          };
        },
        noContent: () => {
          stream = runtime.HttpResponseStream.from(responseStream, { statusCode: 204, headers: {} });
        },
      });
    } catch (error) {
      if (!stream) {
        const answer = errorResponse(error, { route: spec.route });
        stream = runtime.HttpResponseStream.from(responseStream, {
          statusCode: answer.statusCode,
          headers: answer.headers as Record<string, string>,
        });
        await write(answer.body);
      }
    } finally {
      (stream ?? responseStream).end();
    }
  };
  return lambda()?.streamifyResponse(handler) ?? handler;
}
