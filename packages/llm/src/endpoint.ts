/**
 * One OpenAI-compatible chat endpoint, called through the `openai` client with a strict `json_schema` response
 * format. Defaults are those of the LLM endpoint record: temperature 0.1, max_tokens 1000, request_timeout
 * 120 s, num_retries 1 (total attempts, so no retry). A call never outlives request_timeout × attempts.
 */
import { networkMessage } from '@tessera/core';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { JsonFieldText } from './field-text';

export interface LlmEndpointOptions {
  /** OpenAI-compatible base URL including its `/v1` (the client appends `/chat/completions`). */
  baseURL: string;
  /** The model as sent to the endpoint (no provider prefix). */
  model: string;
  /** Sent as a bearer token; without one no Authorization header is sent. */
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  /** Seconds before one attempt times out. */
  requestTimeout?: number;
  /** Total attempts per call (1: no retry); the client retries connection errors, 408, 409, 429 and 5xx. */
  numRetries?: number;
  seed?: number;
  /** Headers sent with every request (the semantic router's identity and tier headers). */
  headers?: Record<string, string>;
}

/** A failed call, in words naming the endpoint; callers add their own context. */
export class LlmCallError extends Error {
  override name = 'LlmCallError';
}

/** One message of a free-form completion. */
export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
}

/** Where a streamed call publishes the text of one string field of its JSON answer as the model writes it. */
export interface FieldStream {
  /** The top-level string field of the format whose text is published (an agent's prose answer). */
  field: string;
  /** Each next piece of the field's text, decoded, in order. */
  onText: (delta: string) => void;
}

export interface JsonCallOptions {
  /** Aborts the call (the run was cancelled, its client went away). */
  signal?: AbortSignal;
  /**
   * Streams the call (`stream: true`) and publishes `field`'s text as it arrives; the answer is still the
   * whole object, parsed once complete, as without it.
   */
  text?: FieldStream;
}

/** What an LLM caller needs: a JSON answer under a strict schema, and words for where it came from. */
export interface JsonLlm {
  /** `llm:<model>`, for the names of what extracts with it. */
  readonly name: string;
  /** Where requests go, for messages. */
  readonly description: string;
  /** The parsed JSON object the model answers under the strict schema; throws `LlmCallError`. */
  json(system: string, user: string, format: JsonSchemaFormat, options?: JsonCallOptions): Promise<unknown>;
}

/** Header names a client may never set: the router's identity and tier headers are the platform's alone. */
export const isAuthzHeader = (name: string) => /^x-authz-/i.test(name);

export function shorten(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export class LlmEndpoint implements JsonLlm {
  readonly model: string;
  readonly baseURL: string;
  readonly headers: Record<string, string>;
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
    this.headers = { ...(options.headers ?? {}) };
    this.client = new OpenAI({
      baseURL: this.baseURL,
      // The client insists on a key; an endpoint without one gets no Authorization header at all.
      apiKey: options.apiKey ?? 'unused',
      defaultHeaders: { ...this.headers, ...(options.apiKey ? {} : { Authorization: null }) },
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: this.timeoutS * 1000,
      maxRetries: this.attempts - 1,
      logLevel: 'off',
    });
  }

  get name(): string {
    return `llm:${this.model}`;
  }

  get description(): string {
    return `LLM endpoint at ${this.baseURL} (model ${this.model})`;
  }

  async json(
    system: string,
    user: string,
    format: JsonSchemaFormat,
    options: JsonCallOptions = {},
  ): Promise<unknown> {
    const request: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
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
    };
    // Retries back off between attempts; the whole call still ends within timeout × attempts.
    const budget = AbortSignal.timeout(this.timeoutS * this.attempts * 1000);
    const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
    let answer: { content: unknown; refusal?: string | null; finish?: string | null };
    try {
      if (options.text) {
        answer = await this.streamed(request, options.text, signal);
      } else {
        const completion = await this.client.chat.completions.create(request, { signal });
        // An endpoint answering something other than JSON gets its text back from the client.
        if (typeof completion !== 'object' || completion === null) {
          throw new LlmCallError(
            `${this.description} answered with something that is not JSON: ${shorten(String(completion))}`,
          );
        }
        const choice = completion.choices?.[0];
        answer = {
          content: choice?.message?.content,
          refusal: choice?.message?.refusal,
          finish: choice?.finish_reason,
        };
      }
    } catch (error) {
      if (error instanceof LlmCallError) throw error;
      if (options.signal?.aborted) {
        throw new LlmCallError(`${this.description}: the call was cancelled`, { cause: error });
      }
      throw new LlmCallError(`${this.description} ${this.callFailure(error)}`, { cause: error });
    }
    if (answer.refusal) throw new LlmCallError(`${this.description} refused: ${shorten(answer.refusal)}`);
    const content = answer.content;
    if (typeof content !== 'string' || content.trim() === '') {
      throw new LlmCallError(`${this.description} answered without content`);
    }
    try {
      return JSON.parse(content);
    } catch (error) {
      const truncated = answer.finish === 'length' ? ` (cut at max_tokens ${this.maxTokens})` : '';
      throw new LlmCallError(
        `${this.description} answered with something that is not JSON${truncated}: ${shorten(content)}`,
        { cause: error },
      );
    }
  }

  /** A streamed call: the content assembled from its chunks, `text.field`'s text published as it arrives. */
  private async streamed(
    request: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
    text: FieldStream,
    signal: AbortSignal,
  ): Promise<{ content: unknown; refusal: string; finish: string | null }> {
    const { data: stream, response } = await this.client.chat.completions
      .create({ ...request, stream: true }, { signal })
      .withResponse();
    const field = new JsonFieldText(text.field);
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // An endpoint that does not stream answers the whole completion: its text is published at once.
      let completion: OpenAI.Chat.Completions.ChatCompletion | undefined;
      try {
        completion = (await response.json()) as OpenAI.Chat.Completions.ChatCompletion;
      } catch {
        throw new LlmCallError(
          `${this.description} answered a streamed call with something that is not JSON`,
        );
      }
      const choice = completion?.choices?.[0];
      const content = choice?.message?.content;
      if (typeof content === 'string') {
        const delta = field.push(content);
        if (delta !== '') text.onText(delta);
      }
      return { content, refusal: choice?.message?.refusal ?? '', finish: choice?.finish_reason ?? null };
    }
    let content = '';
    let refusal = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      finish = choice.finish_reason ?? finish;
      refusal += choice.delta?.refusal ?? '';
      const piece = choice.delta?.content;
      if (!piece) continue;
      content += piece;
      const delta = field.push(piece);
      if (delta !== '') text.onText(delta);
    }
    // An aborted stream ends its iteration quietly: the call did not finish.
    if (signal.aborted) throw new APIUserAbortError();
    return { content, refusal, finish };
  }

  /**
   * A completion of `messages` under the caller's `responseFormat`, sent exactly as given (chat's
   * `response_format`); answers the content. A JSON format's answer must parse as JSON.
   */
  async complete(messages: ChatTurn[], responseFormat?: Record<string, unknown>): Promise<string> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        {
          model: this.model,
          messages,
          temperature: this.temperature,
          max_tokens: this.maxTokens,
          ...(this.seed === undefined ? {} : { seed: this.seed }),
          ...(responseFormat
            ? {
                response_format:
                  responseFormat as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParams['response_format'],
              }
            : {}),
        },
        { signal: AbortSignal.timeout(this.timeoutS * this.attempts * 1000) },
      );
    } catch (error) {
      throw new LlmCallError(`${this.description} ${this.callFailure(error)}`, { cause: error });
    }
    if (typeof completion !== 'object' || completion === null) {
      throw new LlmCallError(
        `${this.description} answered with something that is not JSON: ${shorten(String(completion))}`,
      );
    }
    const message = completion.choices?.[0]?.message;
    if (message?.refusal) throw new LlmCallError(`${this.description} refused: ${shorten(message.refusal)}`);
    const content = message?.content;
    if (typeof content !== 'string') throw new LlmCallError(`${this.description} answered without content`);
    const type = responseFormat?.type;
    if (type === 'json_object' || type === 'json_schema') {
      try {
        JSON.parse(content);
      } catch {
        throw new LlmCallError(
          `${this.description} answered something that is not JSON under a ${type} response format: ${shorten(content)}`,
        );
      }
    }
    return content;
  }

  private callFailure(error: unknown): string {
    const attempts = `${this.attempts} ${this.attempts === 1 ? 'attempt' : 'attempts'}`;
    if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError) {
      return `did not answer within ${this.timeoutS} s (${attempts})`;
    }
    if (error instanceof APIConnectionError) return `did not answer: ${networkMessage(error)} (${attempts})`;
    if (error instanceof APIError && error.status !== undefined) {
      return `answered ${error.status}: ${shorten(error.message)} (${attempts})`;
    }
    if (error instanceof SyntaxError)
      return `answered with something that is not JSON: ${shorten(error.message)}`;
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}
