/** The one place where response bodies, including every error body, are shaped. */

import { HttpError, log, MAX_REQUEST_BODY_BYTES, requestBodyTooLarge } from '@tessera/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * The largest request body as the function receives it (base64 for a binary body): what Lambda takes through
 * API Gateway, less room for the rest of the event (see @tessera/core's payload.ts); the local runtime
 * enforces the same limit.
 */
export const MAX_BODY_BYTES = MAX_REQUEST_BODY_BYTES;

export type HttpResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; body: string };

const jsonHeaders = { 'content-type': 'application/json' };

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { ...jsonHeaders, ...headers }, body: JSON.stringify(body) };
}

const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/** A backing service that did not answer (refused, timed out, or failed with a 5xx of its own). */
function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return (
    (code !== undefined && OUTAGE_CODES.has(code)) ||
    error.name === 'TimeoutError' ||
    (status !== undefined && status >= 500) ||
    (error.cause !== undefined && isOutage(error.cause))
  );
}

/** How much of a refused request a 422 echoes back in each issue's `input`. */
export const ECHO_LIMITS = { depth: 3, items: 20, stringChars: 200 } as const;

/**
 * A bounded copy of a value for an error body: strings cut to 200 characters, arrays and objects to their
 * first 20 items or keys, and nothing deeper than 3 levels (a deeper value becomes `'…'`). Whatever a client
 * sent, the answer stays small and cheap to serialize.
 */
export function echo(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length > ECHO_LIMITS.stringChars ? `${value.slice(0, ECHO_LIMITS.stringChars)}…` : value;
  }
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= ECHO_LIMITS.depth) return '…';
  if (Array.isArray(value)) {
    const items = value.slice(0, ECHO_LIMITS.items).map((item) => echo(item, depth + 1));
    return value.length > ECHO_LIMITS.items ? [...items, '…'] : items;
  }
  const copy: Record<string, unknown> = {};
  const entries = Object.entries(value);
  for (const [key, field] of entries.slice(0, ECHO_LIMITS.items)) {
    Object.defineProperty(copy, key.length > ECHO_LIMITS.stringChars ? (echo(key) as string) : key, {
      value: echo(field, depth + 1),
      enumerable: true,
    });
  }
  if (entries.length > ECHO_LIMITS.items) copy['…'] = `${entries.length - ECHO_LIMITS.items} more keys`;
  return copy;
}

/** A 422's first 100 issues with their `input` bounded; other details as they are. */
function bounded(error: HttpError): unknown {
  if (error.status !== 422 || !Array.isArray(error.detail)) return error.detail;
  return error.detail.slice(0, 100).map((issue) => ({ ...issue, input: echo(issue.input) }));
}

/** Every failure becomes `{detail}`; 5xx other than typed ones never leak internals. */
export function errorResponse(error: unknown, context: Record<string, unknown> = {}): HttpResponse {
  if (error instanceof HttpError) {
    if (error.status >= 500) log.warn('request failed', { status: error.status, error, ...context });
    return json(error.status, { detail: bounded(error) });
  }
  if (isOutage(error)) {
    log.warn('backing service unavailable', { error, ...context });
    return json(503, {
      detail: { error: 'service_unavailable', message: 'A backing service did not answer; retry shortly.' },
    });
  }
  log.error('unhandled error', { error, ...context });
  return json(500, { detail: 'Internal server error' });
}

export const notFoundResponse = (): HttpResponse => json(404, { detail: 'Not Found' });
export const methodNotAllowedResponse = (allowed: string[]): HttpResponse =>
  json(405, { detail: 'Method Not Allowed' }, { allow: allowed.join(', ') });
/** 413 for a body over the limit; `path` the request's, so a direct upload is pointed at the presigned route. */
export const payloadTooLargeResponse = (path?: string): HttpResponse =>
  json(413, { detail: requestBodyTooLarge(path).message });
