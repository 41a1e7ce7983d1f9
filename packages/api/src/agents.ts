/**
 * Agent routes (document 3, clarifications "Agents"): the registry, A2A-compatible agent cards, capability
 * lookup, and dispatch of a task to one agent with each agent's result fields.
 */
import { z } from 'zod';
import { route } from './contract';
import { ConversationsUnavailable, outage, plain, TaskEventsUnavailable } from './errors';
import { KnowledgeResult } from './knowledge';

/** The 23 agents of document 3, in its roster's order. */
export const AGENT_NAMES = [
  'search_agent',
  'text_analysis_agent',
  'image_search_agent',
  'audio_analysis_agent',
  'document_agent',
  'gateway_agent',
  'entity_extraction_agent',
  'query_enhancement_agent',
  'profile_selection_agent',
  'orchestrator_agent',
  'summarizer_agent',
  'detailed_report_agent',
  'deep_research_agent',
  'coding_agent',
  'citation_tracing_agent',
  'contradiction_reconciliation_agent',
  'multi_document_synthesis_agent',
  'kg_traversal_agent',
  'temporal_reasoning_agent',
  'knowledge_summarization_agent',
  'audit_explanation_agent',
  'cross_tenant_comparison_agent',
  'federated_query_agent',
] as const;
export const AgentName = z.enum(AGENT_NAMES).meta({ id: 'AgentName' });
export type AgentName = z.infer<typeof AgentName>;

export const HealthStatus = z.enum(['unknown', 'healthy', 'unhealthy']);
export type HealthStatus = z.infer<typeof HealthStatus>;

export const Modality = z.enum(['video', 'image', 'audio', 'document', 'code', 'text']);
export type Modality = z.infer<typeof Modality>;

/** One registered agent as `GET /agents` lists it. */
export const RegisteredAgent = z
  .object({
    name: AgentName,
    url: z.string().meta({ description: "The agent's base URL: the runtime's own in the unified runtime." }),
    capabilities: z.array(z.string()),
    modalities: z.array(Modality),
    enabled: z.boolean(),
    available: z.boolean().meta({
      description: 'false: this build does not implement the agent yet (its process route says so).',
    }),
    health_status: HealthStatus,
  })
  .meta({ id: 'RegisteredAgent' });
export type RegisteredAgent = z.infer<typeof RegisteredAgent>;

export const AgentList = z.object({ agents: z.array(RegisteredAgent), count: z.number().int() });
export type AgentList = z.infer<typeof AgentList>;

/** An A2A agent skill: one per capability. */
export const AgentSkill = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
});

/** An A2A-compatible agent card, plus the registry's endpoint data. */
export const AgentCard = z
  .object({
    protocolVersion: z.string(),
    name: AgentName,
    description: z.string(),
    url: z.string().meta({ description: "The agent's process endpoint (absolute URL)." }),
    preferredTransport: z.literal('JSONRPC').or(z.literal('HTTP+JSON')),
    version: z.string(),
    capabilities: z.object({
      streaming: z.boolean(),
      pushNotifications: z.boolean(),
      stateTransitionHistory: z.boolean(),
    }),
    skills: z.array(AgentSkill),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    health_endpoint: z.string(),
    process_endpoint: z.string(),
    timeout: z.number().meta({ description: 'Seconds a dispatch may take.' }),
    enabled: z.boolean(),
    available: z.boolean(),
    health_status: HealthStatus,
  })
  .meta({ id: 'AgentCard' });
export type AgentCard = z.infer<typeof AgentCard>;

export const CapabilityAgents = z
  .object({
    capability: z.string(),
    count: z.number().int(),
    agents: z.array(
      z.object({
        name: AgentName,
        url: z.string(),
        capabilities: z.array(z.string()),
        health_status: HealthStatus,
      }),
    ),
  })
  .meta({ id: 'CapabilityAgents' });
export type CapabilityAgents = z.infer<typeof CapabilityAgents>;

/** The largest query a dispatch accepts, in characters. */
export const MAX_QUERY_CHARS = 20_000;

export const ProcessContext = z
  .looseObject({
    tenant_id: z.string().meta({ description: 'Required: the tenant the task runs for.' }),
    workflow_id: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,200}$/, 'letters, digits, `_`, `.`, `:` and `-`, at most 200')
      .optional()
      .meta({ description: 'Reports the run as this workflow task (409 when the id is taken).' }),
    profile: z.string().min(1).max(100).optional(),
    strategy: z.string().optional(),
    top_k: z.number().int().min(1).max(100).optional(),
    session_id: z.string().max(200).optional(),
    context_id: z.string().max(200).optional().meta({
      description:
        'A conversation of the tenant (a chat id): its stored history goes to the agent as `history`, and the query with the answer is appended.',
    }),
    text: z
      .string()
      .max(200_000)
      .optional()
      .meta({ description: 'Text to work on (text analysis, entities, summarizer) instead of the query.' }),
    classify_only: z
      .boolean()
      .optional()
      .meta({ description: 'Gateway: classify and route without running the chosen agent.' }),
    history: z
      .array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.string().max(200_000) }))
      .max(100)
      .optional()
      .meta({
        description:
          'The conversation before this query, oldest first (chat fills it from the stored thread of `context_id`). Agents that prompt an LLM give it the turns.',
      }),
    response_format: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "The caller's OpenAI `response_format` (chat), as it was sent." }),
  })
  .meta({ description: 'The task context; other keys are kept for the agent.' });

export const ProcessRequest = z
  .object({
    agent_name: z.string().optional().meta({ description: 'When given, the agent of the path (else 400).' }),
    query: z.string().trim().min(1).max(MAX_QUERY_CHARS),
    context: ProcessContext,
  })
  .meta({ id: 'AgentProcessRequest' });
export type ProcessRequest = z.output<typeof ProcessRequest>;

const Hit = z.strictObject({
  document_id: z.string(),
  source_doc_id: z.string(),
  score: z.number(),
  rank: z.number().int(),
  text: z.string(),
  profile: z.string(),
});

const retrieval = {
  results: z.array(Hit),
  count: z.number().int(),
  profile: z.string().nullable().meta({ description: 'null: the tenant has no searchable profile.' }),
  strategy: z.string().nullable(),
  profile_selected_by: z.enum(['context', 'profile_selection_agent']),
  sources: z.array(z.string()).meta({ description: 'Document ids of the hits.' }),
  method: z.literal('retrieval'),
};

export const SearchAgentResult = z.strictObject({ ...retrieval }).meta({ id: 'SearchAgentResult' });
export type SearchAgentResult = z.infer<typeof SearchAgentResult>;

export const ModalSearchResult = z
  .strictObject({
    ...retrieval,
    modality: Modality,
    answer: z
      .string()
      .nullable()
      .meta({ description: 'The sentence of the hits that best answers the query, verbatim; null: none.' }),
    method: z.enum(['retrieval', 'extractive']),
    ocr_text: z.string().optional().meta({
      description: "Image search: the text OCR read from the context's photo, searched with the query.",
    }),
  })
  .meta({ id: 'ModalSearchResult' });
export type ModalSearchResult = z.infer<typeof ModalSearchResult>;

export const Entity = z.strictObject({
  text: z.string(),
  label: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  score: z.number(),
});

export const EntityExtractionResult = z
  .strictObject({
    entities: z.array(Entity),
    entity_count: z.number().int(),
    dominant_types: z.array(z.string()),
    extractor: z.string(),
    method: z.literal('extractive'),
  })
  .meta({ id: 'EntityExtractionResult' });
export type EntityExtractionResult = z.infer<typeof EntityExtractionResult>;

export const ProfileSelectionResult = z
  .strictObject({
    selected_profile: z.string().nullable(),
    confidence: z.number().min(0).max(1),
    alternatives: z.array(
      z.strictObject({
        profile: z.string(),
        modality: z.string(),
        confidence: z.number(),
        documents: z.number(),
      }),
    ),
    modality: Modality,
    reasons: z.array(z.string()),
    method: z.literal('extractive'),
  })
  .meta({ id: 'ProfileSelectionResult' });
export type ProfileSelectionResult = z.infer<typeof ProfileSelectionResult>;

export const TextAnalysisResult = z
  .strictObject({
    language: z.string().meta({ description: 'ISO 639-1 code, or `und` when undetermined.' }),
    keywords: z.array(z.string()),
    entities: z.array(Entity),
    sentences: z.number().int(),
    words: z.number().int(),
    reading_time_s: z.number(),
    method: z.literal('extractive'),
  })
  .meta({ id: 'TextAnalysisResult' });
export type TextAnalysisResult = z.infer<typeof TextAnalysisResult>;

export const SummarizerResult = z
  .strictObject({
    summary: z.string(),
    method: z.enum(['extractive', 'llm']),
    sources: z.array(z.string()),
  })
  .meta({ id: 'SummarizerResult' });
export type SummarizerResult = z.infer<typeof SummarizerResult>;

export const GatewayResult = z
  .strictObject({
    classification: z.enum(['simple', 'complex']),
    confidence: z.number().min(0).max(1),
    routed_to: AgentName,
    elapsed_ms: z.number().meta({ description: 'Time the classification took.' }),
    reasons: z.array(z.string()),
    fallback: z
      .strictObject({ from: AgentName, reason: z.string() })
      .optional()
      .meta({ description: 'The agent chosen first, when it could not run and the fallback answered.' }),
    workflow_id: z.string().optional().meta({
      description:
        'The workflow task of the routed run, when it is one (an orchestration or deep research): `GET /events/workflows/{workflow_id}` streams its phases.',
    }),
    result: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: "The routed agent's result; null with `classify_only`." }),
  })
  .meta({ id: 'GatewayResult' });
export type GatewayResult = z.infer<typeof GatewayResult>;

export const QueryEnhancementResult = z
  .strictObject({
    original_query: z.string(),
    enhanced_query: z.string(),
    expansions: z
      .array(z.string())
      .meta({ description: 'Terms added: graph neighbours of the query entities.' }),
    entities: z.array(z.string()),
    method: z.enum(['retrieval', 'llm']),
  })
  .meta({ id: 'QueryEnhancementResult' });
export type QueryEnhancementResult = z.infer<typeof QueryEnhancementResult>;

const PlanStep = z.strictObject({
  agent_name: AgentName,
  query: z.string(),
  depends_on: z.array(z.number().int()).meta({ description: 'Indices of the steps this one waits for.' }),
});

export const OrchestratorResult = z
  .strictObject({
    orchestration_result: z.strictObject({
      workflow_id: z.string(),
      plan: z.strictObject({
        steps: z.array(PlanStep),
        parallel_groups: z.array(z.array(z.number().int())).meta({
          description: 'Step indices run together, groups one after another.',
        }),
      }),
      step_results: z.array(
        z.strictObject({
          step: z.number().int(),
          agent_name: z.string(),
          query: z.string(),
          status: z.enum(['completed', 'failed', 'skipped', 'cancelled']),
          elapsed_ms: z.number(),
          result: z.record(z.string(), z.unknown()).optional(),
          error: z.string().optional(),
        }),
      ),
      final_answer: z.string().meta({ description: "'' when no step completed." }),
      failed_steps: z.array(z.number().int()),
      dropped_steps: z.array(z.strictObject({ agent_name: z.string(), reason: z.string() })),
      sources: z.array(z.string()),
      timings: z.record(z.string(), z.number()),
    }),
  })
  .meta({ id: 'OrchestratorResult' });
export type OrchestratorResult = z.infer<typeof OrchestratorResult>;

export const DetailedReportResult = z
  .strictObject({
    report: z.strictObject({
      title: z.string(),
      sections: z.array(
        z.strictObject({
          heading: z.string(),
          body: z.string(),
          citations: z.array(z.string()).meta({ description: 'Document ids of hits the section rests on.' }),
        }),
      ),
    }),
    method: z.enum(['extractive', 'llm']),
    sources: z.array(z.string()),
  })
  .meta({ id: 'DetailedReportResult' });
export type DetailedReportResult = z.infer<typeof DetailedReportResult>;

export const DeepResearchResult = z
  .strictObject({
    workflow_id: z.string(),
    answer: z.string(),
    iterations: z.array(
      z.strictObject({
        iteration: z.number().int(),
        questions: z.array(z.string()),
        found: z.number().int(),
        sufficient: z.boolean(),
        gaps: z.array(z.string()),
      }),
    ),
    sources: z.array(z.string()),
    method: z.literal('llm'),
    stopped_by: z.enum(['sufficient', 'iterations', 'tokens', 'time', 'no_questions']),
    tokens_estimated: z.number().int(),
    synthesis: z.strictObject({ batches: z.number().int(), rlm_iterations: z.number().int() }).meta({
      description:
        'Batches of hits the `synthesize` phase answered, and the iterations of the recursive synthesis that merged their partial answers.',
    }),
  })
  .meta({ id: 'DeepResearchResult' });
export type DeepResearchResult = z.infer<typeof DeepResearchResult>;

export const CodingResult = z
  .strictObject({
    files: z.array(z.strictObject({ path: z.string(), language: z.string(), content: z.string() })),
    explanation: z.string(),
    method: z.literal('llm'),
  })
  .meta({ id: 'CodingResult' });
export type CodingResult = z.infer<typeof CodingResult>;

export const AgentResult = z.union([
  SearchAgentResult,
  ModalSearchResult,
  EntityExtractionResult,
  ProfileSelectionResult,
  TextAnalysisResult,
  SummarizerResult,
  GatewayResult,
  QueryEnhancementResult,
  OrchestratorResult,
  DetailedReportResult,
  DeepResearchResult,
  CodingResult,
  ...KnowledgeResult.options,
]);
export type AgentResultValue = z.infer<typeof AgentResult>;

export const ProcessCompleted = z
  .strictObject({ status: z.literal('completed'), agent: AgentName, result: AgentResult })
  .meta({ id: 'AgentProcessCompleted' });

export const ProcessCancelled = z
  .strictObject({
    status: z.literal('cancelled'),
    agent: AgentName,
    workflow_id: z.string(),
    message: z.string().meta({ description: '`Workflow <id> was cancelled: <reason>`.' }),
  })
  .meta({ id: 'AgentProcessCancelled' });

export const ProcessResponse = z.union([ProcessCompleted, ProcessCancelled]);
export type ProcessResponse = z.infer<typeof ProcessResponse>;

/** 503 of an agent that must generate text and has no LLM endpoint. */
export const LlmUnavailable = z
  .object({ detail: z.object({ error: z.literal('llm_unavailable'), message: z.string() }) })
  .meta({ id: 'LlmUnavailable' });

/** 501 of an agent of the roster that this build does not implement. */
export const AgentNotAvailable = z
  .object({
    detail: z.object({ error: z.literal('agent_not_available'), agent: AgentName, message: z.string() }),
  })
  .meta({ id: 'AgentNotAvailable' });

const agentPath = z.object({ agent_name: z.string() });
const unknownAgent = plain("`Agent '<name>' not found`.");

export const listAgents = route({
  id: 'listAgents',
  group: 'agents',
  method: 'GET',
  route: '/agents',
  summary: 'The agent registry',
  responses: { 200: { description: 'Every registered agent, enabled or not.', schema: AgentList } },
  errors: { 503: outage },
});

export const agentCard = route({
  id: 'agentCard',
  group: 'agents',
  method: 'GET',
  route: '/agents/{agent_name}/card',
  summary: "An agent's A2A-compatible card",
  path: agentPath,
  responses: { 200: { description: 'The card, generated from the registry.', schema: AgentCard } },
  errors: { 404: unknownAgent, 503: outage },
});

export const agentsByCapability = route({
  id: 'agentsByCapability',
  group: 'agents',
  method: 'GET',
  route: '/agents/by-capability/{capability}',
  summary: 'Every registered agent with a capability, whatever its health',
  path: z.object({ capability: z.string() }),
  responses: { 200: { description: 'The agents (none: an empty list).', schema: CapabilityAgents } },
  errors: { 503: outage },
});

export const processAgent = route({
  id: 'processAgent',
  group: 'agents',
  method: 'POST',
  route: '/agents/{agent_name}/process',
  summary: 'Dispatch a task to an agent',
  description:
    'Runs the agent for `context.tenant_id` and answers its result. With `context.workflow_id` the run is a workflow task whose events `GET /events/workflows/{workflow_id}` streams; a cancel of it answers the cancelled shape.',
  path: agentPath,
  body: ProcessRequest,
  responses: {
    200: {
      description: "The agent's result, or the cancelled shape of a cancelled run.",
      schema: ProcessResponse,
    },
  },
  errors: {
    400: plain('A malformed tenant id, or a body `agent_name` other than the path’s.'),
    404: plain(
      "`Agent '<name>' not found`, `Tenant '<id>' not registered.`, or a knowledge agent's unknown subject (`Node '<key>' not found`), claim (`Claim '<id>' not found`) or workflow (`Workflow '<id>' not found`).",
    ),
    403: plain(
      "A cross-tenant or federated agent naming a tenant of another organization: `Tenant '<id>' is not in organization '<org>'`.",
    ),
    409: plain(
      "`Agent '<name>' is disabled`, a `workflow_id` already taken (`Task <id> already exists`), or a tenant being deleted.",
    ),
    501: {
      description: 'An agent of the roster this build does not implement yet.',
      schema: AgentNotAvailable,
    },
    502: plain('A service the agent called (an LLM endpoint, an embedding service) failed the request.'),
    503: {
      description:
        'No LLM endpoint for an agent that must generate (`llm_unavailable`), the task event store did not answer (`task_events_unavailable`), the conversation store did not for a dispatch naming a `context_id` (`service_unavailable`, `service: conversations`), or another backing service did not.',
      schema: z.union([LlmUnavailable, TaskEventsUnavailable, ConversationsUnavailable, outage.schema]),
    },
    504: plain(
      "The request's time (the agent's `timeout`) ended before the run finished; a workflow run is cancelled.",
    ),
  },
});
