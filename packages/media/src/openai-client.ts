/** One `openai` client per inference endpoint, configured the way the platform's other LLM callers do it. */
import { networkMessage } from '@tessera/core';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

export interface EndpointOptions {
  /** OpenAI-style base URL including `/v1`. */
  baseURL: string;
  model: string;
  /** Sent as a bearer token; without one no Authorization header is sent. */
  apiKey?: string;
  /** Seconds per request. Default 120. */
  timeoutS?: number;
  /** Total attempts per request (1: no retry); the client retries connection errors, 408, 409, 429 and 5xx. */
  attempts?: number;
}

export function openAIClient(options: EndpointOptions): OpenAI {
  return new OpenAI({
    baseURL: options.baseURL.replace(/\/+$/, ''),
    // The client insists on a key; an endpoint without one gets no Authorization header at all.
    apiKey: options.apiKey ?? 'unused',
    ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    organization: null,
    project: null,
    webhookSecret: null,
    timeout: (options.timeoutS ?? 120) * 1000,
    maxRetries: (options.attempts ?? 3) - 1,
    logLevel: 'off',
  });
}

/** A failed call in words: what the endpoint did, with the attempts the client made. */
export function callFailure(error: unknown, options: EndpointOptions): string {
  const attempts = options.attempts ?? 3;
  const made = `${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}`;
  if (error instanceof APIConnectionTimeoutError)
    return `did not answer within ${options.timeoutS ?? 120} s (${made})`;
  if (error instanceof APIConnectionError) return `did not answer: ${networkMessage(error)} (${made})`;
  if (error instanceof APIError && error.status !== undefined) {
    // The client's message starts with the status again ("500 CUDA out of memory").
    const message = error.message.replace(new RegExp(`^${error.status}\\s*`), '');
    return `answered ${error.status}: ${shorten(message || 'no message')} (${made})`;
  }
  return `failed: ${error instanceof Error ? error.message : String(error)}`;
}

export function shorten(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
