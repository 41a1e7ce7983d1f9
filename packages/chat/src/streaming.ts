/**
 * A streamed chat completion: `chat.completion.chunk` frames ending in `data: [DONE]`, as OpenAI streams.
 * The role opens the stream at once; an answer the agent's LLM writes streams as its tokens arrive, any other
 * answer (retrieval, extractive, composed under a JSON format) in pieces once the agent answered; the turn is
 * stored before the last chunk. A failure after the stream opened is one error frame (OpenAI's `error`
 * object and the JSON answer's `detail`), and a client that goes away cancels the run and its LLM call.
 */
import type { Chat } from '@tessera/api';
import { HttpError, log } from '@tessera/core';
import {
  answerTurn,
  type ChatDeps,
  type ChatTurn,
  completionId,
  historyOf,
  storeTurn,
  tesseraOf,
} from './chat';
import { TextDeltas } from './deltas';

export interface ChunkSink {
  write(text: string): Promise<void>;
  readonly closed: boolean;
  signal: AbortSignal;
}

const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * OpenAI's `error` object of a failure's status and `detail`: the detail's `error` as its type (else
 * `server_error` or `invalid_request_error`), its message (a 422's issues as `loc: msg; …`), the status as code.
 */
export function openAiError(status: number, detail: unknown): Chat.ChatStreamError['error'] {
  const type =
    isRecord(detail) && typeof detail.error === 'string'
      ? detail.error
      : status >= 500
        ? 'server_error'
        : 'invalid_request_error';
  const message =
    typeof detail === 'string'
      ? detail
      : isRecord(detail) && typeof detail.message === 'string'
        ? detail.message
        : Array.isArray(detail)
          ? detail
              .filter(isRecord)
              .map((issue) => `${Array.isArray(issue.loc) ? issue.loc.join('.') : ''}: ${String(issue.msg)}`)
              .join('; ')
          : JSON.stringify(detail);
  return { message, type, code: String(status) };
}

/**
 * A completion's JSON error body with OpenAI's `error` object beside the spec's `detail` (kept as it is), so
 * OpenAI clients show the message; the same `error` a stream's error frame carries.
 */
export function completionErrorBody(status: number, body: Record<string, unknown>): Record<string, unknown> {
  return { ...body, error: openAiError(status, body.detail) };
}

/** The stream's error frame of a failure. */
export function errorFrame(error: unknown): Chat.ChatStreamError {
  if (error instanceof HttpError) {
    const detail = error.detail as Record<string, unknown> | string;
    const { message } = openAiError(error.status, detail);
    return {
      error: openAiError(error.status, detail),
      detail: Array.isArray(detail) ? { message, errors: detail } : detail,
    };
  }
  log.error('chat stream failed', { error });
  return {
    error: openAiError(500, 'Internal server error'),
    detail: 'Internal server error',
  };
}

export async function streamCompletion(
  deps: ChatDeps,
  turn: ChatTurn,
  sink: ChunkSink,
  options: { baseUrl: string; signal?: AbortSignal },
): Promise<void> {
  const id = completionId();
  const created = Math.floor(deps.now() / 1000);
  const chunk = (
    delta: { role?: 'assistant'; content?: string },
    finish: 'stop' | null = null,
    extra: Partial<Chat.ChatCompletionChunk> = {},
  ): Chat.ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: turn.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...extra,
  });
  await sink.write(frame(chunk({ role: 'assistant', content: '' })));
  const deltas = new TextDeltas(async (content) => {
    if (!sink.closed) await sink.write(frame(chunk({ content })));
  });
  try {
    const history = await historyOf(deps, turn);
    const signal = options.signal ? AbortSignal.any([options.signal, sink.signal]) : sink.signal;
    const answer = await answerTurn(deps, turn, history, {
      baseUrl: options.baseUrl,
      signal,
      onText: deltas.sink,
    });
    await deltas.end();
    if (sink.closed) return;
    await storeTurn(deps, turn, answer);
    for (const piece of deltas.rest(answer.content)) {
      if (sink.closed) return;
      await sink.write(frame(chunk({ content: piece })));
    }
    await sink.write(frame(chunk({}, 'stop', { tessera: tesseraOf(turn, answer) })));
    await sink.write('data: [DONE]\n\n');
  } catch (error) {
    await deltas.end().catch(() => undefined);
    // A client that went away gets nothing more; its run was cancelled.
    if (sink.closed) return;
    await sink.write(frame(errorFrame(error)));
  }
}
