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

/** Every failure becomes `{detail}`; 5xx other than typed ones never leak internals. */
export function errorResponse(error: unknown, context: Record<string, unknown> = {}): HttpResponse {
  if (error instanceof HttpError) {
    if (error.status >= 500) log.warn('request failed', { status: error.status, error, ...context });
    return json(error.status, { detail: error.detail });
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
