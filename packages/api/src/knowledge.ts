/**
 * Knowledge routes (document 1, clarifications "Knowledge routes"): one route per knowledge agent under
 * `/admin/tenants/{tenant_id}/knowledge/`, each running its agent with the tenant's graph bound. Each answer
 * carries the agent's own fields (`agent`, `tenant_id`, `method`, `graph_bound`, `memories`) beside its
 * graph field; with no graph deployed that field is empty.
 */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';
import { GraphEdge, NodeHit } from './graph';
import { NodeRef, name, TaskId } from './ids';

/** The knowledge agents, by route. */
export const KNOWLEDGE_AGENTS = [
  'kg_traversal_agent',
  'temporal_reasoning_agent',
  'multi_document_synthesis_agent',
  'contradiction_reconciliation_agent',
  'knowledge_summarization_agent',
  'citation_tracing_agent',
  'audit_explanation_agent',
  'cross_tenant_comparison_agent',
  'federated_query_agent',
] as const;
export type KnowledgeAgentName = (typeof KNOWLEDGE_AGENTS)[number];

/** Traversal depth bounds. */
export const MAX_DEPTH = 3;
/** Tenants a cross-tenant request names at most. */
export const MAX_TENANTS = 20;

const tenantPath = z.object({
  tenant_full_id: z.string().meta({ description: 'The calling tenant (`org:tenant`).' }),
});

/** A tenant id as a request names it (checked against the caller's organization before anything is read). */
const OtherTenant = z.string().min(1).max(300);

export const TraverseRequest = z
  .strictObject({
    start_subject_key: NodeRef.meta({ description: 'A node name or id.' }),
    depth: z.number().int().min(1).max(MAX_DEPTH).default(2),
  })
  .meta({ id: 'KnowledgeTraverseRequest' });
export const TemporalRequest = z
  .strictObject({ subject_key: NodeRef.meta({ description: 'A node name or id.' }) })
  .meta({ id: 'KnowledgeTemporalRequest' });
export const SynthesisRequest = z
  .strictObject({
    limit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(100)
      .meta({ description: 'Groups answered at most (those resting on the most documents first).' }),
  })
  .meta({ id: 'KnowledgeSynthesisRequest' });
export const ContradictionRequest = z
  .strictObject({
    subject_key: NodeRef,
    predicate: name(200, 1)
      .optional()
      .meta({ description: 'Only this predicate; without it, every predicate of the subject.' }),
  })
  .meta({ id: 'KnowledgeContradictionRequest' });
export const SummaryRequest = z
  .strictObject({ subject_keys: z.array(NodeRef).min(1).max(100) })
  .meta({ id: 'KnowledgeSummaryRequest' });
export const CitationRequest = z
  .strictObject({ claim_id: name(200, 1).meta({ description: 'An `edge_id`.' }) })
  .meta({ id: 'KnowledgeCitationRequest' });
export const AuditRequest = z.strictObject({ workflow_id: TaskId }).meta({ id: 'KnowledgeAuditRequest' });
export const CrossTenantRequest = z
  .strictObject({
    other_tenant_ids: z.array(OtherTenant).min(1).max(MAX_TENANTS),
    query: z.string().trim().min(1).max(1000),
    top_k: z.number().int().min(1).max(100).default(10),
  })
  .meta({ id: 'KnowledgeCrossTenantRequest' });
export const FederatedRequest = z
  .strictObject({
    tenant_ids: z.array(OtherTenant).min(1).max(MAX_TENANTS),
    query: z.string().trim().min(1).max(1000),
    top_k: z.number().int().min(1).max(100).default(10),
  })
  .meta({ id: 'KnowledgeFederatedRequest' });

/** The fields every knowledge answer carries: the agent's own, beside its graph field. */
const own = {
  agent: z.enum(KNOWLEDGE_AGENTS),
  tenant_id: z.string().meta({ description: 'The calling tenant, canonical.' }),
  method: z.literal('retrieval'),
  graph_bound: z
    .boolean()
    .meta({ description: 'false: the tenant has no graph deployed, so the graph field is empty.' }),
  memories: z
    .array(z.strictObject({ memory_id: z.string(), content: z.string() }))
    .meta({ description: "The agent's own memories of this tenant relevant to the request, best first." }),
};

/** The agent's own fields, as one schema (what every knowledge answer starts with). */
export const OwnFields = z.strictObject(own);
export type OwnFields = z.infer<typeof OwnFields>;

const TraversedNode = NodeHit.omit({ score: true })
  .extend({ hop: z.number().int().meta({ description: 'Hops from the start node (0 for it).' }) })
  .strict();

export const TraverseResult = z
  .strictObject({
    ...own,
    start_node_id: z.string().nullable(),
    nodes: z.array(TraversedNode),
    edges: z.array(GraphEdge.extend({ hop: z.number().int() }).strict()),
    truncated: z.boolean().meta({ description: 'The traversal stopped at 5,000 edges.' }),
  })
  .meta({ id: 'KnowledgeTraverseResult' });

export const TimelineEntry = z.strictObject({
  edge_id: z.string(),
  relation: z.string(),
  target: z.string(),
  ts_start: z.number(),
  ts_end: z.number(),
  source_doc_id: z.string(),
});
export const TemporalResult = z
  .strictObject({ ...own, subject: z.string().nullable(), kg_timeline: z.array(TimelineEntry) })
  .meta({ id: 'KnowledgeTemporalResult' });

export const Claim = z
  .strictObject({
    edge_id: z.string(),
    subject: z.string(),
    predicate: z.string(),
    object: z.string(),
    evidence_span: z.string(),
    source_doc_id: z.string(),
    segment_id: z.string(),
    ts_start: z.number(),
    ts_end: z.number(),
    confidence: z.number(),
  })
  .meta({ id: 'KnowledgeClaim' });
export const SynthesisResult = z
  .strictObject({
    ...own,
    kg_claim_groups: z.array(
      z.strictObject({ subject: z.string(), predicate: z.string(), claims: z.array(Claim) }),
    ),
    total_groups: z.number().int(),
  })
  .meta({ id: 'KnowledgeSynthesisResult' });

const EdgeEvidence = z.strictObject({
  edge_id: z.string(),
  target: z.string(),
  evidence_span: z.string(),
  source_doc_id: z.string(),
  segment_id: z.string(),
  ts_start: z.number(),
  ts_end: z.number(),
});
export const ContradictionResult = z
  .strictObject({
    ...own,
    subject: z.string().nullable(),
    kg_conflict_entries: z.array(
      z.strictObject({
        subject: z.string(),
        predicate: z.string(),
        objects: z.array(z.string()),
        edges: z.array(EdgeEvidence),
      }),
    ),
  })
  .meta({ id: 'KnowledgeContradictionResult' });

export const SummaryResult = z
  .strictObject({
    ...own,
    kg_video_summaries: z.array(
      z.strictObject({
        source_doc_id: z.string(),
        subjects: z.array(z.string()),
        claims: z.array(Claim),
        span: z.strictObject({ ts_start: z.number(), ts_end: z.number() }),
      }),
    ),
  })
  .meta({ id: 'KnowledgeSummaryResult' });

export const CitationResult = z
  .strictObject({
    ...own,
    claim: Claim.nullable(),
    kg_primary_sources: z.array(
      z.strictObject({
        edge_id: z.string(),
        source_doc_id: z.string(),
        segment_id: z.string(),
        evidence_span: z.string().meta({ description: 'Verbatim, as extracted.' }),
        ts_start: z.number(),
        ts_end: z.number(),
        modality: z.string(),
      }),
    ),
  })
  .meta({ id: 'KnowledgeCitationResult' });

export const AuditResult = z
  .strictObject({
    ...own,
    workflow_id: z.string(),
    workflow_agent: z.string().nullable().meta({ description: 'The agent the run was of, when it says.' }),
    status: z.string().meta({ description: 'The state of its last status or terminal event.' }),
    plan: z
      .unknown()
      .nullable()
      .meta({ description: 'The plan the run reported (an orchestration), else null.' }),
    steps: z.array(
      z.strictObject({
        offset: z.number().int(),
        timestamp: z.string(),
        type: z.string(),
        state: z.string().nullable(),
        phase: z.string().nullable(),
        message: z.string().nullable(),
      }),
    ),
    sources: z.array(z.string()),
    timings: z.strictObject({
      started_at: z.string().nullable(),
      ended_at: z.string().nullable(),
      total_ms: z.number(),
      phases: z.array(z.strictObject({ phase: z.string(), ms: z.number() })),
    }),
    event_count: z.number().int(),
  })
  .meta({ id: 'KnowledgeAuditResult' });

const LabelledHit = NodeHit.extend({ tenant_id: z.string() }).strict();

export const CrossTenantResult = z
  .strictObject({
    ...own,
    query: z.string(),
    tenants: z.array(
      z.strictObject({
        tenant_id: z.string(),
        graph_bound: z.boolean(),
        nodes: z.array(LabelledHit),
        count: z.number().int(),
        unique_node_ids: z.array(z.string()).meta({ description: "Hits no other tenant's search found." }),
      }),
    ),
    shared_node_ids: z.array(z.string()).meta({ description: "Hits found in every tenant's graph." }),
  })
  .meta({ id: 'KnowledgeCrossTenantResult' });

export const FederatedResult = z
  .strictObject({
    ...own,
    query: z.string(),
    results: z.array(LabelledHit).meta({ description: "Every tenant's hits, best first, each labelled." }),
    tenants: z.array(
      z.strictObject({ tenant_id: z.string(), graph_bound: z.boolean(), count: z.number().int() }),
    ),
    count: z.number().int(),
  })
  .meta({ id: 'KnowledgeFederatedResult' });

export const KnowledgeResult = z.union([
  TraverseResult,
  TemporalResult,
  SynthesisResult,
  ContradictionResult,
  SummaryResult,
  CitationResult,
  AuditResult,
  CrossTenantResult,
  FederatedResult,
]);
export type KnowledgeResultValue = z.infer<typeof KnowledgeResult>;

const notFound = (what: string) =>
  plain(`${what}, or \`Tenant '<id>' not registered.\` (of the caller, or of a tenant the request names).`);
const forbidden = plain(
  "A named tenant of another organization: `Tenant '<id>' is not in organization '<org>'`.",
);

function knowledgeRoute<const Id extends string, const B extends z.ZodType, const R extends z.ZodType>(
  id: Id,
  suffix: string,
  summary: string,
  body: B,
  result: R,
  errors: Record<number, ReturnType<typeof plain>>,
) {
  return route({
    id,
    group: 'knowledge',
    method: 'POST',
    route: `/admin/tenants/{tenant_full_id}/knowledge/${suffix}`,
    summary,
    path: tenantPath,
    body,
    responses: { 200: { description: "The agent's answer.", schema: result } },
    errors: { ...tenantGuard, ...errors, 503: outage },
  });
}

export const traverse = knowledgeRoute(
  'traverse',
  'graph/traverse',
  'Graph traversal agent: the nodes and edges within `depth` hops of a subject',
  TraverseRequest,
  TraverseResult,
  { 404: notFound("`Node '<key>' not found`") },
);
export const temporalCompare = knowledgeRoute(
  'temporalCompare',
  'temporal/compare',
  "Temporal reasoning agent: a subject's relations in time order (`kg_timeline`)",
  TemporalRequest,
  TemporalResult,
  { 404: notFound("`Node '<key>' not found`") },
);
export const synthesize = knowledgeRoute(
  'synthesize',
  'synthesis/synthesize',
  'Multi-document synthesis agent: every claim grouped by subject and predicate (`kg_claim_groups`)',
  SynthesisRequest,
  SynthesisResult,
  {},
);
export const detectContradictions = knowledgeRoute(
  'detectContradictions',
  'contradictions/detect',
  'Contradiction reconciliation agent: differing objects of a subject and predicate, and `contradicts` edges',
  ContradictionRequest,
  ContradictionResult,
  { 404: notFound("`Node '<key>' not found`") },
);
export const summarize = knowledgeRoute(
  'summarize',
  'summaries/summarize',
  "Knowledge summarization agent: the subjects' claims per source (`kg_video_summaries`)",
  SummaryRequest,
  SummaryResult,
  { 404: notFound("`Node '<key>' not found` (`Nodes '<a>', '<b>' not found` for several)") },
);
export const traceCitation = knowledgeRoute(
  'traceCitation',
  'citations/trace',
  "Citation tracing agent: a claim's verbatim evidence and segment, and the same claim elsewhere",
  CitationRequest,
  CitationResult,
  { 404: notFound("`Claim '<id>' not found`") },
);
export const explainAudit = knowledgeRoute(
  'explainAudit',
  'audit/explain',
  "Audit explanation agent: a workflow run's plan, steps, sources and timings from its events",
  AuditRequest,
  AuditResult,
  { 404: notFound("`Workflow '<id>' not found` (unknown, of another tenant, or past its retention)") },
);
export const compareTenants = knowledgeRoute(
  'compareTenants',
  'cross_tenant/compare',
  "Cross-tenant comparison agent: the query's graph hits in the caller and the named tenants of its organization",
  CrossTenantRequest,
  CrossTenantResult,
  {
    403: forbidden,
    404: notFound('A named tenant not registered'),
    502: plain('The embedding service failed.'),
  },
);
export const federatedQuery = knowledgeRoute(
  'federatedQuery',
  'federated/query',
  "Federated query agent: the query over the named tenants of the caller's organization, hits labelled by tenant",
  FederatedRequest,
  FederatedResult,
  {
    403: forbidden,
    404: notFound('A named tenant not registered'),
    502: plain('The embedding service failed.'),
  },
);
