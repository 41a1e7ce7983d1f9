/**
 * Chat routes: OpenAI-compatible chat completions over the agents (JSON, or chunks as server-sent events with
 * `stream: true`), and the conversations stored per tenant and context id.
 */
import { Chat } from '@tessera/api';
import {
  chat,
  chatCompletion,
  chatTurn,
  completionErrorBody,
  conversationsCall,
  iso,
  streamCompletion,
  threadAnswer,
} from '@tessera/chat';
import { tracing } from '@tessera/config';
import { NotFoundError } from '@tessera/core';
import { httpRoute, streamRoute } from '@tessera/http';
import { requireTenant } from '@tessera/tenancy';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

const deps = chat();
// Spans of this module follow tenants' telemetry records.
tracing();

/** Time kept back from a function's remaining time to answer after a run is cancelled. */
const ANSWER_MARGIN_MS = 1500;

/** The runtime's base URL as the request reached it (the agents' URL in the unified runtime). */
function baseUrl(event: APIGatewayProxyEventV2): string {
  const host = event.headers?.host ?? event.requestContext.domainName;
  const protocol = event.headers?.['x-forwarded-proto'] ?? 'http';
  return `${protocol}://${host}`;
}

const deadline = (context: Context | undefined) =>
  context
    ? AbortSignal.timeout(Math.max(1, context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS))
    : undefined;

export const chatCompletions = streamRoute(
  Chat.chatCompletions,
  async ({ body, event, context, signal, open }) => {
    const turn = await chatTurn(deps, body, event.headers, baseUrl(event));
    const timeout = deadline(context);
    if (!body.stream) {
      return chatCompletion(deps, turn, {
        baseUrl: baseUrl(event),
        signal: timeout ? AbortSignal.any([signal, timeout]) : signal,
      });
    }
    await streamCompletion(deps, turn, open(), { baseUrl: baseUrl(event), signal: timeout });
  },
  // OpenAI clients read `error`; the spec's `detail` stays as it is beside it.
  { errorBody: completionErrorBody },
);

export const listConversations = httpRoute(Chat.listConversations, async ({ query }) => {
  const { tenant } = await requireTenant(deps.agents.content.tenancy, query.tenant_id);
  const threads = await conversationsCall(() => deps.conversations.threads(tenant.full));
  return { threads: threads.map(threadAnswer) };
});

export const getConversation = httpRoute(Chat.getConversation, async ({ path, query }) => {
  const { tenant } = await requireTenant(deps.agents.content.tenancy, query.tenant_id);
  const thread = await conversationsCall(() => deps.conversations.thread(tenant.full, path.context_id));
  if (!thread) throw new NotFoundError(`Conversation '${path.context_id}' not found`);
  return {
    ...threadAnswer(thread),
    tenant_id: tenant.full,
    messages: thread.messages.map((message) => ({ ...message, created_at: iso(message.created_at) })),
  };
});

export const deleteConversation = httpRoute(Chat.deleteConversation, async ({ path, query }) => {
  const { tenant } = await requireTenant(deps.agents.content.tenancy, query.tenant_id);
  const removed = await conversationsCall(() => deps.conversations.remove(tenant.full, path.context_id));
  if (!removed) throw new NotFoundError(`Conversation '${path.context_id}' not found`);
  return { status: 'deleted' as const, context_id: path.context_id };
});
