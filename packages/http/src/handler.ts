/**
 * The shared middy stack of every HTTP route: body limits, content type, JSON or multipart parsing, zod
 * validation of body, query and path, then the domain call; one onError turns any failure into the spec's
 * error bodies. A route is given its contract from @tessera/api, whose answers type what the handler returns.
 */

import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import type { Answer } from '@tessera/api';
import { requestBodyTooLarge, UnsupportedMediaTypeError, ValidationError } from '@tessera/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { type FormFile, parseMultipart } from './multipart';
import { errorResponse, type HttpResponse, json, MAX_BODY_BYTES } from './responses';
import { requestTenant, traceRequest } from './tracing';
import { validate } from './validation';

/** A multipart/form-data body: its text fields are validated as `body`; files come from the `file` field. */
export interface FormSpec<F extends z.ZodType = z.ZodType> {
  fields: F;
  file: string;
}

export interface RouteSpec {
  body?: z.ZodType;
  query?: z.ZodType;
  path?: z.ZodType;
  form?: FormSpec;
  /** Largest file a form may carry (413 above); the body limit when not given. */
  maxFileBytes?: number;
  /** Success answers by status: what the handler may return. */
  responses?: { [status: number]: Answer };
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteRequest<S extends RouteSpec> {
  body: Infer<S['body']>;
  query: Infer<S['query']>;
  path: Infer<S['path']>;
  /** The form of a multipart route: its validated fields and the files of its file field. */
  form: S['form'] extends FormSpec<infer F> ? { fields: z.output<F>; files: FormFile[] } : undefined;
  event: APIGatewayProxyEventV2;
  /** The Lambda context: the time the invocation has left, among others. */
  context: Context;
}

/** A handler returns a plain value (200) or `reply(status, body)`. */
export interface Reply<S extends number = number, B = unknown> {
  readonly __reply: true;
  status: S;
  body: B;
  headers?: Record<string, string>;
}

export function reply<S extends number, B>(
  status: S,
  body: B,
  headers?: Record<string, string>,
): Reply<S, B> {
  return { __reply: true, status, body, headers };
}

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && (value as Reply).__reply === true;
}

/** What a handler of `spec` may return: a body of its 200 answer, or a reply of any of its answers. */
export type RouteAnswer<S extends RouteSpec> = S['responses'] extends infer R extends Record<number, Answer>
  ? {
      [K in keyof R & number]:
        | Reply<K, z.input<R[K]['schema']>>
        | (K extends 200 ? z.input<R[K]['schema']> : never);
    }[keyof R & number]
  : unknown;

function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  return event.headers?.[name] ?? undefined;
}

function rawBody(event: APIGatewayProxyEventV2): string | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  // Counted as received, base64 included: the size Lambda's limit applies to.
  if (Buffer.byteLength(event.body) > MAX_BODY_BYTES) throw requestBodyTooLarge(event.rawPath);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** Deepest nesting of arrays and objects a JSON body may have: every request is far shallower. */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a JSON text nests arrays and objects deeper than `limit`, told by one pass over its brackets
 * (those inside strings skipped) before it is parsed: a deeper value would overflow the stack of whatever
 * walks it recursively, from validation to the error that echoes it.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The request's JSON body (undefined when empty): 413, 415 and 422 as every route answers them. */
export function parseJsonBody(event: APIGatewayProxyEventV2): unknown {
  const text = rawBody(event);
  if (text === undefined) return undefined;
  const contentType = (header(event, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
    throw new UnsupportedMediaTypeError(
      `Unsupported content type '${contentType || '(none)'}': send a JSON body with 'Content-Type: application/json'`,
    );
  }
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ValidationError([
      {
        type: 'json_invalid',
        loc: ['body'],
        msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels; no request needs that`,
        input: {},
      },
    ]);
  }
  let parsed: unknown;
  try {
    // Only a `\uD8xx`-style escape can make an unpaired surrogate: decoded UTF-8 never holds one.
    parsed = JSON.parse(text, /\\u[dD][89a-fA-F]/.test(text) ? refuseUnpairedSurrogates : undefined);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw new ValidationError([
      {
        type: 'json_invalid',
        loc: ['body'],
        msg: `JSON decode error: ${(error as Error).message}`,
        input: {},
      },
    ]);
  }
  return parsed;
}

const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A JSON.parse reviver refusing strings (values or keys) that are not Unicode text: no store could keep them. */
function refuseUnpairedSurrogates(key: string, value: unknown): unknown {
  if (UNPAIRED.test(key) || (typeof value === 'string' && UNPAIRED.test(value))) {
    throw new ValidationError([
      {
        type: 'string_unicode',
        loc: ['body'],
        msg: 'JSON string holds an unpaired surrogate (\\uD800-\\uDFFF): it is not Unicode text',
        input: {},
      },
    ]);
  }
  return value;
}

/** Parses a multipart body, validates its fields as `body` and keeps the files of the form's file field. */
async function parseForm(event: APIGatewayProxyEventV2, spec: FormSpec, maxFileBytes: number) {
  const form = await parseMultipart(event, maxFileBytes);
  const fields = validate('body', spec.fields, form.fields);
  return { fields, files: form.files.filter((file) => file.field === spec.file) };
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
export function httpRoute<const S extends RouteSpec>(
  spec: S,
  fn: (request: RouteRequest<S>) => Promise<RouteAnswer<S>> | RouteAnswer<S>,
) {
  return middy<APIGatewayProxyEventV2, HttpResponse, Error, Context>()
    .use(errorBoundary)
    .handler(async (event, context) => {
      const startTime = Date.now();
      const failed = (error: unknown) =>
        errorResponse(error, { route: event.routeKey, requestId: context?.awsRequestId });
      let request: RouteRequest<S>;
      try {
        const body = spec.body ? validate('body', spec.body, parseJsonBody(event)) : undefined;
        const query = spec.query
          ? validate('query', spec.query, event.queryStringParameters ?? {})
          : undefined;
        const path = spec.path ? validate('path', spec.path, event.pathParameters ?? {}) : undefined;
        const form = spec.form
          ? await parseForm(event, spec.form, spec.maxFileBytes ?? MAX_BODY_BYTES)
          : undefined;
        request = { body, query, path, form, event, context } as RouteRequest<S>;
      } catch (error) {
        // Refused before its tenant was validated: traced under the tenant its path or query names, if any.
        const tenant = requestTenant({ path: event.pathParameters, query: event.queryStringParameters });
        return traceRequest(event, tenant, startTime, async () => failed(error));
      }
      const tenant = requestTenant({
        path: request.path,
        query: request.query,
        body: request.form ? request.form.fields : request.body,
      });
      return traceRequest(event, tenant, startTime, async () => {
        try {
          const result: unknown = await fn(request);
          if (isReply(result)) return json(result.status, result.body, result.headers);
          return json(200, result);
        } catch (error) {
          return failed(error);
        }
      });
    });
}
