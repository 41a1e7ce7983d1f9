/**
 * Loopback HTTP servers speaking the model contracts the document extractors call: a GLiNER sidecar
 * (`POST /predict_entities`) and the OpenAI-compatible chat server of `@tessera/testing`.
 */

export { type ChatReply, type ChatRequest, openAIChat } from '@tessera/testing';

import type { ChatRequest } from '@tessera/testing';

/** The user message of a chat request. */
export function userMessage(request: ChatRequest): string {
  return request.messages.find((message) => message.role === 'user')?.content ?? '';
}

/** The text between the `"""` fences of the user message. */
export function promptText(request: ChatRequest): string {
  const match = /"""\n([\s\S]*)\n"""/.exec(userMessage(request));
  return match ? match[1]! : '';
}
