/** The one HTTP call of the model-server adapters: JSON POST with a timeout and retries on 5xx and network errors. */
import { isTimeout, log, networkMessage } from '@tessera/core';
import {
  EncoderRequestError,
  EncoderResponseError,
  type EncoderService,
  EncoderUnavailableError,
} from './errors';

export interface PostJsonOptions {
  service: EncoderService;
  url: string;
  body: unknown;
  /** Per-attempt timeout. */
  timeoutMs: number;
  /** Attempts after the first one, on network errors, timeouts and 5xx answers only. */
  retries: number;
  headers?: Record<string, string>;
  /** First backoff delay, doubled at each retry. Default 100 ms. */
  retryDelayMs?: number;
}

/** POSTs `body` and returns the parsed JSON answer, or throws an Encoder*Error naming the service. */
export async function postJson(options: PostJsonOptions): Promise<unknown> {
  const { service, url, timeoutMs, retries } = options;
  const payload = JSON.stringify(options.body);
  const delay = options.retryDelayMs ?? 100;
  let reason = 'did not answer';
  let cause: unknown;
  let attempt = 0;
  while (attempt <= retries) {
    if (attempt > 0) await sleep(delay * 2 ** (attempt - 1));
    attempt++;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
        body: payload,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      cause = error;
      reason = isTimeout(error)
        ? `did not answer within ${timeoutMs} ms`
        : `did not answer: ${networkMessage(error)}`;
      retrying(options, attempt, reason);
      continue;
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      cause = error;
      reason = isTimeout(error)
        ? `did not finish its answer within ${timeoutMs} ms`
        : `broke off its answer: ${networkMessage(error)}`;
      retrying(options, attempt, reason);
      continue;
    }
    if (response.status >= 500) {
      cause = undefined;
      reason = `answered ${response.status}: ${bodyMessage(text) || response.statusText}`;
      retrying(options, attempt, reason);
      continue;
    }
    if (!response.ok) {
      throw new EncoderRequestError(service, url, response.status, bodyMessage(text) || response.statusText);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new EncoderResponseError(service, url, `answer is not JSON: ${shorten(text)}`);
    }
  }
  throw new EncoderUnavailableError(service, url, reason, attempt, cause);
}

function retrying(options: PostJsonOptions, attempt: number, reason: string): void {
  if (attempt > options.retries) return;
  log.warn('encoder request failed, retrying', {
    service: options.service,
    url: options.url,
    attempt,
    reason,
  });
}

/** The message of an error answer: OpenAI's `{error: {message}}`, vLLM's `{message}`, `{detail}`, or the text. */
function bodyMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error;
    if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
      return shorten((error as { message: string }).message);
    }
    for (const key of ['message', 'error', 'detail'] as const) {
      const value = body[key];
      if (typeof value === 'string') return shorten(value);
      if (value !== undefined) return shorten(JSON.stringify(value));
    }
  } catch {
    // not JSON: the text itself
  }
  return shorten(text.trim());
}

function shorten(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
