/**
 * One OpenAI-compatible chat endpoint, called through the `openai` client with a strict `json_schema` response
 * format. Defaults are those of the LLM endpoint record: temperature 0.1, max_tokens 1000, request_timeout 120 s,
 * num_retries 1 (total attempts, so no retry).
 */

import { networkMessage } from '@tessera/core';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { shorten } from './http';

export interface LlmEndpointOptions {
  /** OpenAI-compatible base URL including its `/v1` (the client appends `/chat/completions`). */
  baseURL: string;
  model: string;
  /** Sent as a bearer token; without one no Authorization header is sent. */
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  /** Seconds before a request times out. */
  requestTimeout?: number;
  /** Total attempts per call (1: no retry); the client retries connection errors, 408, 409, 429 and 5xx. */
  numRetries?: number;
  seed?: number;
}

/** A failed call, in words naming the endpoint; the extractors add the document context. */
export class LlmCallError extends Error {}

export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
}

export class LlmEndpoint {
  readonly model: string;
  readonly baseURL: string;
  private readonly client: OpenAI;
  private readonly temperature: number;
  private readonly maxTokens: number;
  private readonly seed: number | undefined;
  private readonly timeoutS: number;
  private readonly attempts: number;

  constructor(options: LlmEndpointOptions) {
    this.model = options.model;
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    this.temperature = options.temperature ?? 0.1;
    this.maxTokens = options.maxTokens ?? 1000;
    this.seed = options.seed;
    this.timeoutS = options.requestTimeout ?? 120;
    this.attempts = options.numRetries ?? 1;
    this.client = new OpenAI({
      baseURL: this.baseURL,
      // The client insists on a key; an endpoint without one gets no Authorization header at all.
      apiKey: options.apiKey ?? 'unused',
      ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: this.timeoutS * 1000,
      maxRetries: this.attempts - 1,
      logLevel: 'off',
    });
  }

  /** Where requests go, for messages. */
  get description(): string {
    return `LLM endpoint at ${this.baseURL} (model ${this.model})`;
  }

  /** The parsed JSON object the model answers under the strict schema; throws `LlmCallError`. */
  async json(system: string, user: string, format: JsonSchemaFormat): Promise<unknown> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        temperature: this.temperature,
        max_tokens: this.maxTokens,
        ...(this.seed === undefined ? {} : { seed: this.seed }),
        response_format: {
          type: 'json_schema',
          json_schema: { name: format.name, strict: true, schema: format.schema },
        },
      });
    } catch (error) {
      throw new LlmCallError(`${this.description} ${this.callFailure(error)}`, { cause: error });
    }
    const choice = completion.choices?.[0];
    const message = choice?.message;
    if (message?.refusal) throw new LlmCallError(`${this.description} refused: ${shorten(message.refusal)}`);
    const content = message?.content;
    if (typeof content !== 'string' || content.trim() === '') {
      throw new LlmCallError(`${this.description} answered without content`);
    }
    try {
      return JSON.parse(content);
    } catch (error) {
      const truncated = choice?.finish_reason === 'length' ? ` (cut at max_tokens ${this.maxTokens})` : '';
      throw new LlmCallError(
        `${this.description} answered with something that is not JSON${truncated}: ${shorten(content)}`,
        { cause: error },
      );
    }
  }

  private callFailure(error: unknown): string {
    const attempts = `${this.attempts} ${this.attempts === 1 ? 'attempt' : 'attempts'}`;
    if (error instanceof APIConnectionTimeoutError)
      return `did not answer within ${this.timeoutS} s (${attempts})`;
    if (error instanceof APIConnectionError) return `did not answer: ${networkMessage(error)} (${attempts})`;
    if (error instanceof APIError && error.status !== undefined) {
      return `answered ${error.status}: ${shorten(error.message)} (${attempts})`;
    }
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}
