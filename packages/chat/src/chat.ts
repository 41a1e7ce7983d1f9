/**
 * A chat turn over an agent (clarifications "Chat, conversations, AG-UI, harness keys"): the agent a `model`
 * names, the tenant, the conversation's stored history given to the agent as `context.history`, the run
 * through the agents' own dispatch, the answer text derived from its result (or written by the tenant's LLM
 * under the caller's `response_format`), and the turn appended to the conversation.
 */
import { randomUUID } from 'node:crypto';
import {
  AGENTS,
  AgentNotAvailableError,
  AgentRegistry,
  type AgentsDeps,
  processAgent,
  registeredAgents,
  type TextSink,
} from '@tessera/agents';
import { type Agents, Chat } from '@tessera/api';
import {
  ConflictError,
  HttpError,
  parseTenantId,
  ServiceUnavailableError,
  type TenantId,
  ValidationError,
} from '@tessera/core';
import { LlmCallError, LlmUnavailableError } from '@tessera/llm';
import { type GuardedTenant, requireTenant } from '@tessera/tenancy';
import { answerText } from '@tessera/wiki';
import type { ConversationStore, NewMessage } from './conversations';
import type { HarnessKeyStore } from './harness-keys';

export interface ChatDeps {
  agents: AgentsDeps;
  conversations: ConversationStore;
  keys: HarnessKeyStore;
  now: () => number;
}

/** 503 naming the conversation store (document 3's errors). */
export class ConversationsUnavailableError extends ServiceUnavailableError {
  constructor(cause?: unknown) {
    super('service_unavailable', 'The conversation store did not answer; retry.', {
      service: 'conversations',
    });
    if (cause !== undefined) this.cause = cause;
  }
}

/** A call of the conversation store: any failure but an HTTP answer is the store not answering. */
export async function conversationsCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new ConversationsUnavailableError(error);
  }
}

const invalid = (loc: (string | number)[], msg: string, input: unknown): ValidationError =>
  new ValidationError([{ type: 'value_error', loc, msg, input }]);

/** The agent a `model` names: `gateway_agent` by default, `tessera/<agent>` as `<agent>` (422 for
 * `tessera/` alone). */
export function agentOf(model: string | undefined | null): string {
  const name = (model ?? '').trim() || 'gateway_agent';
  if (!name.startsWith('tessera/')) return name;
  const agent = name.slice('tessera/'.length).trim();
  if (agent === '') {
    throw invalid(['body', 'model'], 'Name an agent after `tessera/`, e.g. `tessera/search_agent`', model);
  }
  return agent;
}

/** The agent, if it may run: 404 unknown, 409 disabled, 501 not built (what dispatch checks, before a stream opens). */
export async function runnableAgent(
  deps: ChatDeps,
  name: string,
  baseUrl: string,
): Promise<Agents.AgentName> {
  const entry = AgentRegistry.find(await registeredAgents(deps.agents, baseUrl), name);
  if (!entry.enabled) throw new ConflictError(`Agent '${name}' is disabled`);
  if (!AGENTS.has(entry.name)) throw new AgentNotAvailableError(entry.name);
  return entry.name;
}

/** The text of a message's content: a string, or its text parts joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === 'object' && typeof part.text === 'string' ? part.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

/** What one chat request asks, checked. */
export interface ChatTurn {
  agent: Agents.AgentName;
  /** As the caller named it (the answer's `model`). */
  model: string;
  tenant: TenantId;
  /** The tenant as the turn's check guarded it, which the dispatch takes (one read of its record). */
  guarded: GuardedTenant;
  contextId: string | undefined;
  question: string;
  /** The request's own earlier messages (used when no conversation is named). */
  earlier: Chat.HistoryMessage[];
  responseFormat: Chat.ResponseFormat | undefined;
}

function header(headers: Record<string, string | undefined> | undefined, name: string): string | undefined {
  const value = headers?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Whether two tenant ids name one tenant (`acme` is `acme:acme`; a malformed one only itself). */
function sameTenant(a: string, b: string): boolean {
  try {
    return parseTenantId(a).full === parseTenantId(b).full;
  } catch {
    return a === b;
  }
}

/** Checks a chat completion request: the agent, the tenant, the conversation and the question. */
export async function chatTurn(
  deps: ChatDeps,
  body: Chat.ChatCompletionRequest,
  headers: Record<string, string | undefined> | undefined,
  baseUrl: string,
): Promise<ChatTurn> {
  const last = body.messages.at(-1)!;
  const question = contentText(last.content).trim();
  if (last.role !== 'user' || question === '') {
    throw invalid(
      ['body', 'messages', body.messages.length - 1],
      'The last message must be a user message with text: it is the question',
      { role: last.role },
    );
  }
  if (question.length > 20_000) {
    throw invalid(['body', 'messages', body.messages.length - 1, 'content'], 'At most 20000 characters', {
      length: question.length,
    });
  }
  const headerTenant = header(headers, 'x-tessera-tenant');
  if (
    body.tenant_id !== undefined &&
    headerTenant !== undefined &&
    !sameTenant(body.tenant_id, headerTenant)
  ) {
    throw invalid(
      ['body', 'tenant_id'],
      `The body's tenant_id and the X-Tessera-Tenant header name different tenants ('${body.tenant_id}', '${headerTenant}'): give one, or the same`,
      { tenant_id: body.tenant_id, 'x-tessera-tenant': headerTenant },
    );
  }
  const rawTenant = body.tenant_id ?? headerTenant;
  if (rawTenant === undefined) {
    throw new ValidationError([
      {
        type: 'missing',
        loc: ['body', 'tenant_id'],
        msg: 'The tenant is required: `tenant_id` in the body or the X-Tessera-Tenant header',
        input: {},
      },
    ]);
  }
  const rawContext = body.metadata?.context_id ?? header(headers, 'x-tessera-context');
  if (rawContext !== undefined && !Chat.ContextId.safeParse(rawContext).success) {
    throw invalid(
      body.metadata?.context_id === undefined
        ? ['header', 'x-tessera-context']
        : ['body', 'metadata', 'context_id'],
      'A context id is 1 to 200 letters, digits, `_`, `.`, `:`, `@` and `-`',
      rawContext,
    );
  }
  const agent = await runnableAgent(deps, agentOf(body.model), baseUrl);
  const guarded = await requireTenant(deps.agents.content.tenancy, rawTenant);
  const { tenant } = guarded;
  const earlier = body.messages
    .slice(0, -1)
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map((message) => ({
      role: message.role as 'user' | 'assistant',
      content: contentText(message.content),
    }))
    .filter((message) => message.content !== '')
    .slice(-Chat.HISTORY_MESSAGES);
  return {
    agent,
    model: body.model?.trim() || 'gateway_agent',
    tenant,
    guarded,
    contextId: rawContext,
    question,
    earlier,
    responseFormat: body.response_format,
  };
}

export interface ChatAnswer {
  content: string;
  method: 'agent' | 'llm' | 'result_json';
  result: Record<string, unknown>;
}

/** The history the agent gets: the stored conversation's newest messages, else the request's own. */
export async function historyOf(deps: ChatDeps, turn: ChatTurn): Promise<Chat.HistoryMessage[]> {
  if (turn.contextId === undefined) return turn.earlier;
  const stored = await conversationsCall(() =>
    deps.conversations.recent(turn.tenant.full, turn.contextId!, Chat.HISTORY_MESSAGES),
  );
  return stored.map((message) => ({ role: message.role, content: message.content }));
}

const COMPOSE_SYSTEM =
  'Answer the user from the agent result given with the question, under the required response format. Use only what the result says; where it does not cover something, say so in the format.';

/** Whether the turn's answer is the agent's own text, which may stream (a JSON format's answer is composed after). */
export function answersText(turn: Pick<ChatTurn, 'responseFormat'>): boolean {
  const type = turn.responseFormat?.type;
  return type !== 'json_object' && type !== 'json_schema';
}

/**
 * Runs the turn's agent with its history and derives the answer. A JSON `response_format` is honoured by
 * the tenant's LLM, which gets it exactly as sent; `json_object` without an LLM answers the result itself.
 * `onText` gets the answer's text as the agent's LLM writes it, when the answer is that text.
 */
export async function answerTurn(
  deps: ChatDeps,
  turn: ChatTurn,
  history: Chat.HistoryMessage[],
  options: { baseUrl: string; signal?: AbortSignal; onText?: TextSink },
): Promise<ChatAnswer> {
  const context: Agents.ProcessRequest['context'] = {
    tenant_id: turn.tenant.full,
    history,
    ...(turn.contextId === undefined ? {} : { context_id: turn.contextId }),
    ...(turn.responseFormat ? { response_format: turn.responseFormat } : {}),
  };
  const outcome = await processAgent(
    deps.agents,
    turn.agent,
    { query: turn.question, context },
    {
      baseUrl: options.baseUrl,
      signal: options.signal,
      guarded: turn.guarded,
      ...(options.onText && answersText(turn) ? { onText: options.onText } : {}),
    },
  );
  if (outcome.status !== 'completed') {
    throw new HttpError(409, outcome.message);
  }
  const result = outcome.result as Record<string, unknown>;
  const format = turn.responseFormat;
  if (format?.type !== 'json_object' && format?.type !== 'json_schema') {
    return { content: answerText(result), method: 'agent', result };
  }
  const settings = await deps.agents.llm.resolve(turn.tenant.full);
  if (!settings) {
    if (format.type === 'json_object') {
      return { content: JSON.stringify(result), method: 'result_json', result };
    }
    const error = new LlmUnavailableError(turn.tenant.full);
    throw new HttpError(
      503,
      {
        error: 'llm_unavailable',
        message: `${error.message}: a json_schema response format needs one to write the answer`,
      },
      error.message,
    );
  }
  try {
    const content = await deps.agents.llm.complete(
      turn.tenant.full,
      [
        { role: 'system', content: COMPOSE_SYSTEM },
        ...history,
        {
          role: 'user',
          content: `${turn.question}\n\nAgent result (${turn.agent}):\n${JSON.stringify(result)}`,
        },
      ],
      format as Record<string, unknown>,
    );
    return { content, method: 'llm', result };
  } catch (error) {
    if (error instanceof LlmCallError) throw new HttpError(502, error.message);
    throw error;
  }
}

/** Appends the turn (question and answer) to its conversation, when it names one. */
export async function storeTurn(deps: ChatDeps, turn: ChatTurn, answer: ChatAnswer): Promise<void> {
  if (turn.contextId === undefined) return;
  const messages: NewMessage[] = [
    { role: 'user', content: turn.question },
    { role: 'assistant', content: answer.content, agent: turn.agent },
  ];
  await conversationsCall(() =>
    deps.conversations.append(turn.tenant.full, turn.contextId!, messages, deps.now()),
  );
}

/** OpenAI counts tokens; this counts words, which is what a caller can check. */
const words = (text: string) => (text.match(/\S+/g) ?? []).length;

export function completionId(): string {
  return `chatcmpl-${randomUUID().replaceAll('-', '')}`;
}

export function tesseraOf(turn: ChatTurn, answer: ChatAnswer) {
  return {
    agent: turn.agent,
    context_id: turn.contextId ?? null,
    method: answer.method,
    result: answer.result,
  };
}

export function completion(
  turn: ChatTurn,
  history: Chat.HistoryMessage[],
  answer: ChatAnswer,
  id: string,
  created: number,
): Chat.ChatCompletion {
  const prompt = words(turn.question) + history.reduce((sum, m) => sum + words(m.content), 0);
  const answered = words(answer.content);
  return {
    id,
    object: 'chat.completion',
    created,
    model: turn.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: answered, total_tokens: prompt + answered },
    tessera: tesseraOf(turn, answer),
  };
}

/** One non-streamed chat completion: history, run, answer, stored turn (a store failure is a 503, no answer). */
export async function chatCompletion(
  deps: ChatDeps,
  turn: ChatTurn,
  options: { baseUrl: string; signal?: AbortSignal },
): Promise<Chat.ChatCompletion> {
  const history = await historyOf(deps, turn);
  const answer = await answerTurn(deps, turn, history, options);
  await storeTurn(deps, turn, answer);
  return completion(turn, history, answer, completionId(), Math.floor(deps.now() / 1000));
}

/**
 * A dispatch (`POST /agents/{name}/process`) whose `context.context_id` names a conversation (a chat
 * gateway's chat id): its stored history goes to the agent as `context.history` (unless the caller gave one),
 * and the query with the answer derived from the result is appended. A store that does not answer fails the
 * request with 503, rather than a reply that would never be stored.
 */
export async function processInConversation(
  deps: ChatDeps,
  name: string,
  request: Agents.ProcessRequest,
  options: { baseUrl: string; signal?: AbortSignal },
): Promise<Agents.ProcessResponse> {
  const contextId = request.context.context_id;
  if (contextId === undefined) return processAgent(deps.agents, name, request, options);
  if (!Chat.ContextId.safeParse(contextId).success) {
    throw invalid(
      ['body', 'context', 'context_id'],
      'A context id is 1 to 200 letters, digits, `_`, `.`, `:`, `@` and `-`',
      contextId,
    );
  }
  await runnableAgent(deps, name, options.baseUrl);
  const guarded = await requireTenant(deps.agents.content.tenancy, request.context.tenant_id);
  const { tenant } = guarded;
  const history =
    request.context.history ??
    (
      await conversationsCall(() => deps.conversations.recent(tenant.full, contextId, Chat.HISTORY_MESSAGES))
    ).map((message) => ({ role: message.role, content: message.content }));
  const outcome = await processAgent(
    deps.agents,
    name,
    { ...request, context: { ...request.context, history } },
    { ...options, guarded },
  );
  if (outcome.status === 'completed') {
    const answer = answerText(outcome.result as Record<string, unknown>);
    await conversationsCall(() =>
      deps.conversations.append(
        tenant.full,
        contextId,
        [
          { role: 'user', content: request.query },
          { role: 'assistant', content: answer, agent: outcome.agent },
        ],
        deps.now(),
      ),
    );
  }
  return outcome;
}
