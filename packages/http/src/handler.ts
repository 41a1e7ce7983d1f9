/**
 * The shared middy stack of every HTTP route: body limits, content type, JSON parsing, zod validation of
 * body, query and path, then the domain call; one onError turns any failure into the spec's error bodies.
 */

import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '@tessera/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { errorResponse, type HttpResponse, json, MAX_BODY_BYTES } from './responses';
import { validate } from './validation';

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  body?: B;
  query?: Q;
  path?: P;
}

export interface RouteRequest<B, Q, P> {
  body: B;
  query: Q;
  path: P;
  event: APIGatewayProxyEventV2;
}

/** A handler returns a plain value (200) or `reply(status, body)`. */
export interface Reply {
  readonly __reply: true;
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function reply(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return { __reply: true, status, body, headers };
}

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && (value as Reply).__reply === true;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  return event.headers?.[name] ?? undefined;
}

function rawBody(event: APIGatewayProxyEventV2): string | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw new PayloadTooLargeError(`Request body exceeds the ${MAX_BODY_BYTES / (1024 * 1024)} MB limit`);
  }
  return text;
}

function parseJsonBody(event: APIGatewayProxyEventV2): unknown {
  const text = rawBody(event);
  if (text === undefined) return undefined;
  const contentType = (header(event, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
    throw new UnsupportedMediaTypeError(
      `Unsupported content type '${contentType || '(none)'}': send a JSON body with 'Content-Type: application/json'`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError([
      {
        type: 'json_invalid',
        loc: ['body'],
        msg: `JSON decode error: ${(error as Error).message}`,
        input: {},
      },
    ]);
  }
}

const errorBoundary: MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> = {
  name: 'tessera-error-boundary',
  onError: (request) => {
    request.response = errorResponse(request.error, {
      route: request.event.routeKey,
      requestId: request.context.awsRequestId,
    });
  },
};

/** Builds the Lambda handler of one route. */
export function httpRoute<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
>(
  spec: { body?: B; query?: Q; path?: P },
  fn: (request: RouteRequest<Infer<B>, Infer<Q>, Infer<P>>) => Promise<unknown> | unknown,
) {
  return middy<APIGatewayProxyEventV2, HttpResponse, Error, Context>()
    .use(errorBoundary)
    .handler(async (event) => {
      const body = spec.body ? validate('body', spec.body, parseJsonBody(event)) : undefined;
      const query = spec.query ? validate('query', spec.query, event.queryStringParameters ?? {}) : undefined;
      const path = spec.path ? validate('path', spec.path, event.pathParameters ?? {}) : undefined;
      const result = await fn({ body, query, path, event } as RouteRequest<Infer<B>, Infer<Q>, Infer<P>>);
      if (isReply(result)) return json(result.status, result.body, result.headers);
      return json(200, result);
    });
}
