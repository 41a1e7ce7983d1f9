/**
 * An OpenAI-compatible `POST /v1/chat/completions` on loopback (through `startServer`) that refuses any
 * request without a strict `json_schema` response format, as a structured-output server would, and streams
 * its answer as `chat.completion.chunk` events when the request asks `stream: true`. The LLM client's, the
 * extractors' and the agents' tests answer through it.
 */
import type { Reply, SeenRequest } from './index';

/** The chat request's messages, response format and sampling settings. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  seed?: number;
  stream?: boolean;
  response_format?: {
    type: string;
    json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> };
  };
}

/**
 * What the fake model does with one chat request: answer content (JSON-encoded unless a string), or a raw
 * reply. A streamed answer sends the content in pieces of `chunkChars` characters (default 8), `intervalMs`
 * apart (default none: at once).
 */
export type ChatReply =
  | { content: unknown; finish_reason?: string; chunkChars?: number; intervalMs?: number }
  | Reply;

/** `content` as OpenAI streams it: the role, the content's pieces, then the finish reason. */
function chunks(id: string, model: string, content: string, finish: string, size: number) {
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason, logprobs: null }],
  });
  const pieces: string[] = [];
  // By code point, so a piece never splits a character.
  const chars = [...content];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return [
    chunk({ role: 'assistant', content: '' }),
    ...pieces.map((piece) => chunk({ content: piece })),
    chunk({}, finish),
  ];
}

/**
 * An OpenAI-compatible chat server. Requests to another path get 404; a request without a strict `json_schema`
 * response format gets 400, as from a server that enforces structured output.
 */
export function openAIChat(
  answer: (request: ChatRequest, seen: SeenRequest, count: number) => ChatReply | Promise<ChatReply>,
): (seen: SeenRequest, count: number) => Promise<Reply> {
  return async (seen, count) => {
    if (seen.method !== 'POST' || seen.url !== '/v1/chat/completions') {
      return { status: 404, json: { error: { message: `no route ${seen.method} ${seen.url}` } } };
    }
    const request = seen.body as ChatRequest;
    const format = request.response_format;
    if (format?.type !== 'json_schema' || format.json_schema?.strict !== true || !format.json_schema.schema) {
      return { status: 400, json: { error: { message: 'response_format must be a strict json_schema' } } };
    }
    const reply = await answer(request, seen, count);
    if (reply === 'hang' || 'status' in reply) return reply;
    const content = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    if (request.stream === true) {
      return {
        status: 200,
        events: chunks(
          `chatcmpl-${count}`,
          request.model,
          content,
          reply.finish_reason ?? 'stop',
          reply.chunkChars ?? 8,
        ),
        intervalMs: reply.intervalMs,
      };
    }
    return {
      status: 200,
      json: {
        id: `chatcmpl-${count}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: request.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null },
            finish_reason: reply.finish_reason ?? 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      },
    };
  };
}
