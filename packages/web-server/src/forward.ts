/**
 * Forwarding a browser's request to the runtime: the body and the answer stream through unbuffered (server-
 * sent events arrive as the runtime writes them), the client's disconnect aborts the upstream request, and
 * only end-to-end headers cross: hop-by-hop headers, the browser's credentials and any `x-authz-*` header
 * (the LLM routing headers, which only the runtime sets) never reach the runtime.
 */

import { log } from '@tessera/core';
import { type RuntimeTarget, runtimeTarget } from './targets';

/** Hop-by-hop headers (RFC 9110 §7.6.1), dropped in both directions. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Request headers that are the web origin's, not the runtime's: its host, its cookies, its credentials (the
 * web server holds no key of its own; harness keys are added by the server, never taken from a browser), and
 * `expect` (a fetch cannot honour 100-continue).
 */
const ORIGIN_ONLY = new Set(['host', 'cookie', 'authorization', 'expect', 'accept-encoding']);

/** Headers named by the `Connection` header are hop-by-hop too. */
function connectionTokens(headers: Headers): Set<string> {
  return new Set(
    (headers.get('connection') ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

export function forwardedRequestHeaders(incoming: Headers): Headers {
  const named = connectionTokens(incoming);
  const headers = new Headers();
  incoming.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || ORIGIN_ONLY.has(name) || named.has(name) || name.startsWith('x-authz-'))
      return;
    headers.append(name, value);
  });
  // The answer streams to the browser as it comes; a compressed one would be decoded here and re-framed.
  headers.set('accept-encoding', 'identity');
  return headers;
}

export function forwardedResponseHeaders(upstream: Headers): Headers {
  const named = connectionTokens(upstream);
  const headers = new Headers();
  upstream.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || named.has(name)) return;
    headers.append(name, value);
  });
  if (headers.has('content-encoding')) {
    // fetch decodes a compressed body, so its length and coding no longer describe what is sent on.
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  if ((headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    // No cache, proxy or ingress in front of this server may buffer or transform a stream.
    headers.set('cache-control', 'no-cache, no-transform');
    headers.set('x-accel-buffering', 'no');
  }
  return headers;
}

/** The answer of every forwarded route whose runtime does not answer (clarifications, "Web client"). */
export function runtimeUnavailable(): Response {
  return Response.json({ detail: 'Runtime unavailable' }, { status: 502 });
}

/**
 * The upstream body, read only as fast as the browser takes it (no buffer in between). If the runtime breaks
 * the answer mid-way, the browser's copy ends there: an event stream's `EventSource` then resumes with
 * `Last-Event-ID`, and any other answer is visibly cut short.
 */
export function passThrough(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          if (!signal.aborted) log.warn('runtime answer broke off', { error: (error as Error).message });
          controller.close();
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

export type Forward = (request: Request, pathAndQuery: string) => Promise<Response>;

/**
 * A forwarder to the runtime at `runtime`: its base URL (including any ingress prefix), or where each of its
 * routes is answered.
 */
export function createForwarder(runtime: string | RuntimeTarget, fetchImpl: typeof fetch = fetch): Forward {
  const target = typeof runtime === 'string' ? runtimeTarget(runtime) : runtime;
  return async (request, pathAndQuery) => {
    const base = target(request.method, pathAndQuery);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== null;
    let upstream: Response;
    try {
      upstream = await fetchImpl(`${base}${pathAndQuery}`, {
        method: request.method,
        headers: forwardedRequestHeaders(request.headers),
        body: hasBody ? request.body : null,
        // Streams the upload to the runtime as the browser sends it.
        ...(hasBody ? { duplex: 'half' } : {}),
        redirect: 'manual',
        // Aborted when the browser goes away: the upstream request (and any stream) closes with it.
        signal: request.signal,
      } as RequestInit);
    } catch {
      return runtimeUnavailable();
    }
    return new Response(upstream.body && passThrough(upstream.body, request.signal), {
      status: upstream.status,
      statusText: upstream.statusText,
      headers: forwardedResponseHeaders(upstream.headers),
    });
  };
}
