/**
 * AG-UI runs (`POST /ag-ui/{agent}`): a `RunAgentInput` (checked with @ag-ui/core's schema) runs the agent
 * for the tenant its harness key fixes, through the agents' dispatch, and the run is told as AG-UI events:
 * `RUN_STARTED`, a `TOOL_CALL_*` sequence per sub-agent call of an orchestration, `STATE_SNAPSHOT` with the
 * hits, the answer as `TEXT_MESSAGE_START|CONTENT|END`, then `RUN_FINISHED`, or `RUN_ERROR` on a failure.
 * An answer the agent's LLM writes streams as it arrives (its message opens with the first token and closes
 * once the run is over, before the tool calls and the snapshot).
 */
import { randomUUID } from 'node:crypto';
import { type BaseEvent, EventType, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { processAgent } from '@tessera/agents';
import { type Agents, Chat } from '@tessera/api';
import { HttpError, log, parseTenantId, type TenantId, ValidationError } from '@tessera/core';
import { type GuardedTenant, requireTenant } from '@tessera/tenancy';
import { answerText } from '@tessera/wiki';
import { hitsOf, stepsOf } from './answer';
import { type ChatDeps, contentText, conversationsCall, runnableAgent } from './chat';
import { TextDeltas } from './deltas';
import { tenantOfKey } from './harness-keys';

/** The tenant a request's harness key opens: 401 without a key, or with one unknown, expired or revoked. */
export function keyTenant(deps: ChatDeps, authorization: string | undefined): Promise<string> {
  return tenantOfKey(deps.keys, authorization, deps.now());
}

/** A RunAgentInput, or 422 naming what @ag-ui/core's schema refused. */
export function parseRunInput(body: unknown): RunAgentInput {
  const parsed = RunAgentInputSchema.safeParse(body ?? {});
  if (parsed.success) return parsed.data as RunAgentInput;
  throw new ValidationError(
    parsed.error.issues.slice(0, 100).map((issue) => ({
      type: issue.code,
      loc: ['body', ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
      msg: issue.message,
      input: {},
    })),
  );
}

export interface AgUiTurn {
  agent: Agents.AgentName;
  tenant: TenantId;
  /** The tenant as the turn's check guarded it, which the dispatch takes (one read of its record). */
  guarded: GuardedTenant;
  input: RunAgentInput;
  question: string;
  history: Chat.HistoryMessage[];
  /** The thread, as a conversation of the tenant (when `threadId` is a valid context id). */
  contextId: string | undefined;
}

/** Checks a run before its stream opens: the agent, the key's tenant, the question. */
export async function agUiTurn(
  deps: ChatDeps,
  agentName: string,
  keyTenantId: string,
  input: RunAgentInput,
  baseUrl: string,
): Promise<AgUiTurn> {
  const agent = await runnableAgent(deps, agentName, baseUrl);
  const guarded = await requireTenant(deps.agents.content.tenancy, keyTenantId);
  const { tenant } = guarded;
  const forwarded = input.forwardedProps as { tenant_id?: unknown } | undefined;
  if (forwarded && typeof forwarded === 'object' && forwarded.tenant_id !== undefined) {
    const claimed = String(forwarded.tenant_id);
    const canonical = (() => {
      try {
        return parseTenantId(claimed).full;
      } catch {
        return claimed;
      }
    })();
    if (canonical !== tenant.full) {
      throw new HttpError(403, `The harness key is for tenant '${tenant.full}', not '${claimed}'`);
    }
  }
  const messages = input.messages.map((message) => ({
    role: message.role,
    content: contentText((message as { content?: unknown }).content).trim(),
  }));
  const lastUser = messages.findLastIndex((message) => message.role === 'user' && message.content !== '');
  if (lastUser < 0) {
    throw new ValidationError([
      {
        type: 'value_error',
        loc: ['body', 'messages'],
        msg: 'A user message with text is required: the last one is the question',
        input: {},
      },
    ]);
  }
  const question = messages[lastUser]!.content;
  if (question.length > 20_000) {
    throw new ValidationError([
      {
        type: 'string_too_long',
        loc: ['body', 'messages', lastUser],
        msg: 'At most 20000 characters',
        input: {},
      },
    ]);
  }
  const history = messages
    .slice(0, lastUser)
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content !== '')
    .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content }))
    .slice(-Chat.HISTORY_MESSAGES);
  const contextId = Chat.ContextId.safeParse(input.threadId).success ? input.threadId : undefined;
  return { agent, tenant, guarded, input, question, history, contextId };
}

/** Frames of one run: each AG-UI event as `@ag-ui/encoder` writes it, after an `id:` line. */
export class AgUiFrames {
  private readonly encoder = new EventEncoder();
  private next = 0;

  frame(event: BaseEvent): string {
    return `id: ${this.next++}\n${this.encoder.encodeSSE(event)}`;
  }
}

/** Runs the turn and emits its events; failures become `RUN_ERROR` (the stream is open by then). */
export async function runAgUi(
  deps: ChatDeps,
  turn: AgUiTurn,
  emit: (event: BaseEvent) => Promise<void>,
  options: { baseUrl: string; signal: AbortSignal },
): Promise<void> {
  const { threadId, runId } = turn.input;
  const now = () => deps.now();
  await emit({ type: EventType.RUN_STARTED, threadId, runId, timestamp: now() } as BaseEvent);
  const messageId = `msg_${randomUUID()}`;
  let opened = false;
  const message = async (delta: string) => {
    if (!opened) {
      opened = true;
      await emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' } as BaseEvent);
    }
    await emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta } as BaseEvent);
  };
  const deltas = new TextDeltas(message);
  try {
    const outcome = await processAgent(
      deps.agents,
      turn.agent,
      {
        query: turn.question,
        context: {
          tenant_id: turn.tenant.full,
          history: turn.history,
          ...(turn.contextId ? { context_id: turn.contextId } : {}),
        },
      },
      { ...options, guarded: turn.guarded, onText: deltas.sink },
    );
    await deltas.end();
    if (outcome.status !== 'completed') throw new HttpError(409, outcome.message);
    const result = outcome.result as Record<string, unknown>;
    const content = answerText(result);
    if (turn.contextId) {
      const contextId = turn.contextId;
      await conversationsCall(() =>
        deps.conversations.append(
          turn.tenant.full,
          contextId,
          [
            { role: 'user', content: turn.question },
            { role: 'assistant', content, agent: turn.agent },
          ],
          now(),
        ),
      );
    }
    // A streamed answer is completed and closed first; any other is told after the calls and the hits.
    const streamed = deltas.streamed;
    if (streamed) {
      for (const delta of deltas.rest(content)) await message(delta);
      await emit({ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent);
    }
    for (const step of stepsOf(result)) {
      const toolCallId = `${runId}_${step.id}`;
      await emit({
        type: EventType.TOOL_CALL_START,
        toolCallId,
        toolCallName: step.agent,
        parentMessageId: messageId,
      } as BaseEvent);
      await emit({
        type: EventType.TOOL_CALL_ARGS,
        toolCallId,
        delta: JSON.stringify({ query: step.query }),
      } as BaseEvent);
      await emit({ type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent);
      await emit({
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${toolCallId}_result`,
        toolCallId,
        content: JSON.stringify(step.result),
        role: 'tool',
      } as BaseEvent);
    }
    const hits = hitsOf(result);
    await emit({
      type: EventType.STATE_SNAPSHOT,
      snapshot: {
        agent: turn.agent,
        hits,
        sources: Array.isArray(result.sources) ? result.sources : hits.map((hit) => hit.document_id),
      },
    } as BaseEvent);
    if (!streamed) {
      for (const delta of deltas.rest(content)) await message(delta);
      if (!opened)
        await emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' } as BaseEvent);
      await emit({ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent);
    }
    await emit({
      type: EventType.RUN_FINISHED,
      threadId,
      runId,
      result: { agent: turn.agent },
      timestamp: now(),
    } as BaseEvent);
  } catch (error) {
    await deltas.end().catch(() => undefined);
    if (options.signal.aborted) return;
    let message = 'Internal server error';
    let code = 'internal_error';
    if (error instanceof HttpError) {
      const detail = error.detail as Record<string, unknown> | string;
      message =
        typeof detail === 'string'
          ? detail
          : typeof detail.message === 'string'
            ? detail.message
            : error.message;
      code =
        typeof detail === 'object' && typeof detail.error === 'string' ? detail.error : String(error.status);
    } else {
      log.error('AG-UI run failed', { error });
    }
    await emit({ type: EventType.RUN_ERROR, message, code, timestamp: now() } as BaseEvent);
  }
}
