/**
 * An OpenAI-compatible `POST /v1/chat/completions` on loopback (through `startServer`) that refuses any
 * request without a strict `json_schema` response format, as a structured-output server would. The LLM
 * client's and the extractors' tests answer through it.
 */
import type { Reply, SeenRequest } from './index';

/** The chat request's messages, response format and sampling settings. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  seed?: number;
  response_format?: {
    type: string;
    json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> };
  };
}

/** What the fake model does with one chat request: answer content (JSON-encoded unless a string), or a raw reply. */
export type ChatReply = { content: unknown; finish_reason?: string } | Reply;

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
