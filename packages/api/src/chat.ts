/**
 * Chat routes (document 3; clarifications "Chat, conversations, AG-UI, harness keys"): OpenAI-compatible
 * chat completions over the agents, the conversations stored per tenant and context id, AG-UI runs, and the
 * harness keys that guard them.
 */
import { z } from 'zod';
import { AgentNotAvailable, LlmUnavailable } from './agents';
import { type Answer, route } from './contract';
import { ConversationsUnavailable, outage, plain, stackErrors, tenantGuard } from './errors';

export { ConversationsUnavailable, ConversationsUnavailableDetail } from './errors';

/** A conversation's id: what `metadata.context_id` or `X-Tessera-Context` names (a chat id, a thread id). */
export const ContextId = z
  .string()
  .regex(/^[A-Za-z0-9_.:@-]{1,200}$/, 'letters, digits, `_`, `.`, `:`, `@` and `-`, at most 200')
  .meta({ id: 'ContextId' });

/** The most messages of a conversation given to an agent as its history (the newest). */
export const HISTORY_MESSAGES = 20;

/** One turn of a conversation as agents receive it in `context.history`. */
export const HistoryMessage = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
});
export type HistoryMessage = z.infer<typeof HistoryMessage>;

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

export const ChatMessage = z
  .looseObject({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: z
      .union([z.string().max(200_000), z.array(ContentPart).max(100), z.null()])
      .optional()
      .meta({ description: 'Text, or content parts whose `text` parts are read.' }),
    name: z.string().max(200).optional(),
  })
  .meta({ id: 'ChatMessage' });
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ResponseFormat = z
  .union([
    z.looseObject({ type: z.literal('text') }),
    z.looseObject({ type: z.literal('json_object') }),
    z.looseObject({
      type: z.literal('json_schema'),
      json_schema: z.looseObject({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, `_` and `-`, at most 64'),
        description: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullable().optional(),
      }),
    }),
  ])
  .meta({
    id: 'ResponseFormat',
    description:
      "OpenAI's response format, forwarded intact to the agent (`context.response_format`) and to the tenant's LLM, which writes the answer under it. `json_schema` needs an LLM endpoint (503 `llm_unavailable` without); `json_object` without one answers the agent's result as the JSON object.",
  });
export type ResponseFormat = z.infer<typeof ResponseFormat>;

export const ChatCompletionRequest = z
  .looseObject({
    model: z
      .string()
      .max(200)
      .optional()
      .meta({ description: 'The agent: `gateway_agent` (default), or `<agent>` / `tessera/<agent>`.' }),
    messages: z
      .array(ChatMessage)
      .min(1)
      .max(1000)
      .meta({ description: 'The last one is the question (a user message with text).' }),
    stream: z.boolean().nullable().optional(),
    response_format: ResponseFormat.optional(),
    metadata: z
      .record(z.string(), z.string().max(512))
      .optional()
      .meta({ description: '`context_id` names the conversation (else the `X-Tessera-Context` header).' }),
    tenant_id: z
      .string()
      .optional()
      .meta({ description: 'The tenant (else the `X-Tessera-Tenant` header); one of them is required.' }),
  })
  .meta({
    id: 'ChatCompletionRequest',
    description: "OpenAI's chat completion request; other OpenAI fields are accepted and not used.",
  });
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequest>;

/** What Tessera adds to an OpenAI answer: the agent, the conversation and the agent's result. */
export const ChatTessera = z.strictObject({
  agent: z.string(),
  context_id: z.string().nullable(),
  method: z.enum(['agent', 'llm', 'result_json']).meta({
    description:
      "`agent`: the text is the agent's own answer (or its hits); `llm`: the tenant's LLM wrote it from the result under `response_format`; `result_json`: the result as the JSON object.",
  }),
  result: z.record(z.string(), z.unknown()),
});

export const ChatCompletion = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string(),
          refusal: z.null(),
        }),
        finish_reason: z.literal('stop'),
        logprobs: z.null(),
      }),
    ),
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    }),
    tessera: ChatTessera,
  })
  .meta({ id: 'ChatCompletion' });
export type ChatCompletion = z.infer<typeof ChatCompletion>;

export const ChatCompletionChunk = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
        finish_reason: z.literal('stop').nullable(),
        logprobs: z.null(),
      }),
    ),
    tessera: ChatTessera.optional().meta({ description: 'On the last chunk.' }),
  })
  .meta({ id: 'ChatCompletionChunk' });
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;

/**
 * A stream's error frame: OpenAI's `error` object (which OpenAI clients raise) and the `detail` the JSON
 * answer would have carried.
 */
/** OpenAI's error object, which OpenAI clients read: the message, the detail's `error` (or a kind) as type, the status. */
export const OpenAiError = z
  .object({ message: z.string(), type: z.string(), code: z.string().nullable() })
  .meta({ id: 'OpenAiError' });

export const ChatStreamError = z
  .object({
    error: OpenAiError,
    detail: z.record(z.string(), z.unknown()).or(z.string()),
  })
  .meta({ id: 'ChatStreamError' });
export type ChatStreamError = z.infer<typeof ChatStreamError>;

/**
 * A completion's error answer: the spec's `{detail}` body as every route answers it, with OpenAI's `error`
 * object beside it (optional where the request may be refused before the route reads it).
 */
function withOpenAiError(answer: Answer, optional = false): Answer {
  return {
    description: `${answer.description} Beside \`detail\`, OpenAI's \`error: {message, type, code}\`${optional ? ' when the route itself refuses the request' : ''}.`,
    schema: z.intersection(
      answer.schema,
      z.object({ error: optional ? OpenAiError.optional() : OpenAiError }),
    ),
  };
}

const unknownAgent = plain(
  "`Agent '<name>' not found` (the `model`), or `Tenant '<id>' not registered.`; `Agent '<name>' is disabled` is 409.",
);

export const chatCompletions = route({
  id: 'chatCompletions',
  group: 'chat',
  method: 'POST',
  route: '/v1/chat/completions',
  summary: 'OpenAI-compatible chat completion over an agent',
  description:
    'Runs the agent `model` names on the last message, with the conversation (`metadata.context_id` or `X-Tessera-Context`) of the tenant (`tenant_id` or `X-Tessera-Tenant`) as `context.history`, and stores the turn. With `stream: true` the answer is `chat.completion.chunk` server-sent events ending in `data: [DONE]`; a failure once the stream started is one error frame (`ChatStreamError`). An error answer carries OpenAI\'s `error: {message, type, code}` beside the spec\'s `detail`, so OpenAI clients show its message. 422 for `model: "tessera/"` (no agent named) and for a body `tenant_id` and an `X-Tessera-Tenant` header that name different tenants.',
  body: ChatCompletionRequest,
  responses: {
    200: {
      description: 'The completion (JSON), or with `stream: true` its chunks as server-sent events.',
      schema: ChatCompletion,
    },
  },
  streamSchema: z.union([ChatCompletionChunk, ChatStreamError]),
  errors: Object.fromEntries(
    Object.entries({
      ...stackErrors,
      ...tenantGuard,
      404: unknownAgent,
      409: plain("`Agent '<name>' is disabled`, or the tenant is being deleted."),
      501: {
        description: 'An agent of the roster this build does not implement yet.',
        schema: AgentNotAvailable,
      },
      502: plain('A service the agent called failed the request.'),
      503: {
        description:
          'The conversation store did not answer (`service_unavailable`, `service: conversations`), no LLM endpoint for a `json_schema` answer or an agent that must generate (`llm_unavailable`), or another backing service did not answer.',
        schema: z.union([ConversationsUnavailable, LlmUnavailable, outage.schema]),
      },
      504: plain("The agent's time ended before it finished."),
    }).map(([status, answer]) => [
      status,
      status === '431' ? answer : withOpenAiError(answer, status === '400' || status === '413'),
    ]),
  ),
});

export const ConversationThread = z
  .object({
    context_id: z.string(),
    title: z.string().meta({ description: "The thread's first question, cut to 80 characters." }),
    updated_at: z.string().meta({ description: 'ISO 8601.' }),
    message_count: z.number().int(),
  })
  .meta({ id: 'ConversationThread' });
export type ConversationThread = z.infer<typeof ConversationThread>;

export const ConversationList = z
  .object({ threads: z.array(ConversationThread) })
  .meta({ id: 'ConversationList' });

export const ConversationMessage = z
  .object({
    role: z.enum(['user', 'assistant']),
    content: z.string(),
    created_at: z.string().meta({ description: 'ISO 8601.' }),
    agent: z.string().optional().meta({ description: 'The agent that answered (assistant messages).' }),
  })
  .meta({ id: 'ConversationMessage' });
export type ConversationMessage = z.infer<typeof ConversationMessage>;

export const Conversation = z
  .object({
    context_id: z.string(),
    tenant_id: z.string(),
    title: z.string(),
    updated_at: z.string(),
    message_count: z.number().int(),
    messages: z.array(ConversationMessage).meta({ description: 'Oldest first.' }),
  })
  .meta({ id: 'Conversation' });
export type Conversation = z.infer<typeof Conversation>;

const conversationPath = z.object({ context_id: ContextId });
const tenantQuery = z.object({ tenant_id: z.string() });
const conversationsOutage = {
  description: 'The conversation store did not answer.',
  schema: ConversationsUnavailable,
};

export const listConversations = route({
  id: 'listConversations',
  group: 'chat',
  method: 'GET',
  route: '/conversations',
  summary: "A tenant's conversation threads, most recently updated first",
  query: tenantQuery,
  responses: { 200: { description: 'The threads.', schema: ConversationList } },
  errors: { ...tenantGuard, 503: conversationsOutage },
});

export const getConversation = route({
  id: 'getConversation',
  group: 'chat',
  method: 'GET',
  route: '/conversations/{context_id}',
  summary: "A conversation's messages",
  path: conversationPath,
  query: tenantQuery,
  responses: { 200: { description: 'The thread and its messages.', schema: Conversation } },
  errors: {
    ...tenantGuard,
    404: plain("`Conversation '<context_id>' not found`, or the tenant is not registered."),
    503: conversationsOutage,
  },
});

export const deleteConversation = route({
  id: 'deleteConversation',
  group: 'chat',
  method: 'DELETE',
  route: '/conversations/{context_id}',
  summary: 'Delete a conversation',
  path: conversationPath,
  query: tenantQuery,
  responses: {
    200: {
      description: 'Deleted.',
      schema: z.object({ status: z.literal('deleted'), context_id: z.string() }),
    },
  },
  errors: {
    ...tenantGuard,
    404: plain("`Conversation '<context_id>' not found`, or the tenant is not registered."),
    503: conversationsOutage,
  },
});

/** Harness key lifetimes, in seconds. */
export const HARNESS_KEY_TTL = { min: 1, max: 604_800, default: 3600 } as const;

export const HarnessKeyRequest = z
  .strictObject({
    tenant_id: z.string(),
    ttl: z
      .number()
      .int()
      .min(HARNESS_KEY_TTL.min)
      .max(HARNESS_KEY_TTL.max)
      .default(HARNESS_KEY_TTL.default)
      .meta({ description: 'Seconds the key lives (1 to 604800, default 3600).' }),
  })
  .meta({ id: 'HarnessKeyRequest' });

export const HarnessKey = z
  .object({
    key_id: z.string(),
    key: z.string().meta({ description: 'The key itself: shown once, only its SHA-256 is stored.' }),
    tenant_id: z.string(),
    expires_at: z.string().meta({ description: 'ISO 8601.' }),
  })
  .meta({ id: 'HarnessKey' });
export type HarnessKey = z.infer<typeof HarnessKey>;

export const KeyId = z.string().regex(/^hk_[0-9a-f]{24}$/, '`hk_` and 24 hexadecimal digits');

export const createHarnessKey = route({
  id: 'createHarnessKey',
  group: 'ag-ui',
  method: 'POST',
  route: '/admin/harness/keys',
  summary: 'Mint a harness key for a tenant',
  description: 'The key goes as `Authorization: Bearer <key>` to `POST /ag-ui/{agent}` and fixes the tenant.',
  body: HarnessKeyRequest,
  responses: { 201: { description: 'The key.', schema: HarnessKey } },
  errors: { ...tenantGuard, 503: outage },
});

export const revokeHarnessKey = route({
  id: 'revokeHarnessKey',
  group: 'ag-ui',
  method: 'DELETE',
  route: '/admin/harness/keys/{key_id}',
  summary: 'Revoke a harness key',
  path: z.object({ key_id: KeyId }),
  responses: {
    200: {
      description: 'Revoked (again, for a key revoked before).',
      schema: z.object({ status: z.literal('revoked'), key_id: z.string() }),
    },
  },
  errors: { 404: plain("`Harness key '<key_id>' not found` (never minted, or expired)."), 503: outage },
});

/** An AG-UI event as a frame's `data:` (the `@ag-ui/core` event schemas; `type` names it). */
export const AgUiEvent = z
  .looseObject({
    type: z.enum([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
      'RUN_ERROR',
    ]),
  })
  .meta({ id: 'AgUiEvent' });

export const RunAgentInput = z
  .looseObject({
    threadId: z.string(),
    runId: z.string(),
    state: z.unknown().optional(),
    messages: z.array(z.looseObject({ id: z.string(), role: z.string() })),
    tools: z.array(z.unknown()),
    context: z.array(z.unknown()),
    forwardedProps: z.unknown().optional(),
  })
  .meta({
    id: 'RunAgentInput',
    description:
      "AG-UI's RunAgentInput (validated with @ag-ui/core's schema); the last user message is the question, the messages before it the history, `threadId` the conversation.",
  });

export const agUiRun = route({
  id: 'agUiRun',
  group: 'ag-ui',
  method: 'POST',
  route: '/ag-ui/{agent}',
  summary: 'Run an agent over AG-UI',
  description:
    'Requires `Authorization: Bearer <harness key>`, which fixes the tenant. Answers AG-UI events as server-sent events, each with an `id:` line: `RUN_STARTED`, `TOOL_CALL_*` for the sub-agent calls of an orchestration, `STATE_SNAPSHOT` with the hits, `TEXT_MESSAGE_START|CONTENT|END`, then `RUN_FINISHED`, or `RUN_ERROR` once a failure comes after the stream started.',
  path: z.object({ agent: z.string() }),
  body: RunAgentInput,
  stream: true,
  responses: { 200: { description: 'The AG-UI events (`text/event-stream`).', schema: AgUiEvent } },
  errors: {
    401: plain('No harness key, or one unknown, expired or revoked.'),
    403: plain("`forwardedProps.tenant_id` names another tenant than the key's."),
    404: plain("`Agent '<name>' not found`, or the key's tenant is no longer registered."),
    409: plain("`Agent '<name>' is disabled`, or the tenant is being deleted."),
    503: outage,
  },
});
