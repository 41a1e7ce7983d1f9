/**
 * The knowledge agents (document 1's query-time consumers, document 3's roster): each binds the tenant's
 * graph at its run and answers its own fields (its memories of the tenant relevant to the request) beside
 * its graph field; with no graph deployed that field is empty. Their input is the task context's fields
 * (the knowledge routes put their body there), the subject falling back to the query.
 */
import { type Agents, Knowledge } from '@tessera/api';
import { ForbiddenError, parseTenantId, type TenantId, ValidationError } from '@tessera/core';
import {
  boundGraph,
  compareOverTime,
  detect,
  normalizeNodeId,
  searchNodes,
  summarize,
  synthesize,
  type TenantGraph,
  trace,
  traverse,
} from '@tessera/graph';
import { requireTenant } from '@tessera/tenancy';
import type { z } from 'zod';
import type { Agent, AgentRun } from '../agent';
import type { AgentsDeps } from '../deps';
import { explainRun } from './audit';

/** The tenant's graph bound to the run: none when the graph domain is not wired or nothing is deployed. */
const bind = (deps: AgentsDeps, tenant: TenantId): Promise<TenantGraph | undefined> =>
  deps.graph ? boundGraph(deps.graph, tenant) : Promise.resolve(undefined);

/** The agent's own fields: who answered for whom, and what it remembers of the tenant about the request. */
async function own(
  run: AgentRun,
  agent: Knowledge.KnowledgeAgentName,
  graph: TenantGraph | undefined,
  about: string,
): Promise<Knowledge.OwnFields> {
  const memories = (await run.recall(about, 5)).map(({ memory_id, content }) => ({ memory_id, content }));
  return {
    agent,
    tenant_id: run.tenant.full,
    method: 'retrieval',
    graph_bound: graph !== undefined,
    memories,
  };
}

/**
 * The agent's input from the task context, validated by its route's body schema; `fallback` names the field
 * the query stands for when the context leaves it out (a dispatch that only gives a query).
 */
function inputOf<S extends z.ZodObject>(schema: S, run: AgentRun, fallback?: (query: string) => object) {
  const given: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    if (run.context[key] !== undefined) given[key] = run.context[key];
  }
  const parsed = schema.safeParse({ ...(fallback ? fallback(run.query) : {}), ...given });
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((issue) => ({
        type: issue.code,
        loc: ['body', 'context', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
        msg: issue.message,
        // The value the issue is about, as given (null where nothing was).
        input:
          issue.path.reduce<unknown>(
            (value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key],
            given,
          ) ?? null,
      })),
    );
  }
  return parsed.data as z.output<S>;
}

/**
 * The tenants a cross-tenant request names, refused with 403 unless each is of the caller's organization.
 * Only the ids are looked at: nothing of any tenant is read before this passes.
 */
export function sameOrganization(caller: TenantId, named: readonly string[]): TenantId[] {
  const tenants = named.map((raw) => {
    let parsed: TenantId | undefined;
    try {
      parsed = parseTenantId(raw);
    } catch {
      // A malformed id is of no organization.
    }
    if (parsed?.orgId !== caller.orgId) {
      throw new ForbiddenError(`Tenant '${raw}' is not in organization '${caller.orgId}'`);
    }
    return parsed;
  });
  return [...new Map(tenants.map((tenant) => [tenant.full, tenant])).values()];
}

const subjectFallback = (field: string) => (query: string) => ({ [field]: query });

/**
 * The subject a run is about: the context's key as given; when only the query names it (an orchestration's
 * step asks in words) and no node has that name, the node whose name and description the query's words match best.
 */
function subjectOf(run: AgentRun, graph: TenantGraph | undefined, field: string, key: string): string {
  if (run.context[field] !== undefined || !graph) return key;
  const id = normalizeNodeId(key);
  if (id && graph.nodes.has(id)) return key;
  // Words of the query must match the node's name or description (BM25): a query naming nothing stays unknown.
  const [best] = graph.text.search(key, 1);
  return best?.id ?? key;
}

/** A knowledge agent: its request, what its memories are recalled by, and its own answer's fields. */
interface KnowledgeSpec<S extends z.ZodObject> {
  name: Knowledge.KnowledgeAgentName;
  /** Its route's body schema, which the task context's fields are validated by. */
  request: S;
  /** The fields the query stands for when the context leaves them out. */
  fallback?: (query: string) => object;
  /** What its memories of the tenant relevant to the request are recalled by. */
  about: (input: z.output<S>, run: AgentRun) => string;
  /**
   * Its answer's fields beside its own; `graph()` binds the tenant's graph (once), when the answer needs it
   * (a cross-tenant one checks the other tenants first).
   */
  answer(use: {
    deps: AgentsDeps;
    run: AgentRun;
    input: z.output<S>;
    graph: () => Promise<TenantGraph | undefined>;
  }): Promise<object> | object;
}

function knowledgeAgent<S extends z.ZodObject>(spec: KnowledgeSpec<S>): Agent {
  return {
    name: spec.name,
    async run(deps, run) {
      const input = inputOf(spec.request, run, spec.fallback);
      let bound: Promise<TenantGraph | undefined> | undefined;
      const graph = () => {
        bound ??= bind(deps, run.tenant);
        return bound;
      };
      const answer = await spec.answer({ deps, run, input, graph });
      return { ...(await own(run, spec.name, await graph(), spec.about(input, run))), ...answer };
    },
  };
}

export const kgTraversalAgent = knowledgeAgent({
  name: 'kg_traversal_agent',
  request: Knowledge.TraverseRequest,
  fallback: subjectFallback('start_subject_key'),
  about: (input) => input.start_subject_key,
  async answer({ run, input, graph }) {
    const bound = await graph();
    const key = subjectOf(run, bound, 'start_subject_key', input.start_subject_key);
    return bound
      ? traverse(bound, key, input.depth)
      : { start_node_id: null, nodes: [], edges: [], truncated: false };
  },
});

export const temporalReasoningAgent = knowledgeAgent({
  name: 'temporal_reasoning_agent',
  request: Knowledge.TemporalRequest,
  fallback: subjectFallback('subject_key'),
  about: (input) => input.subject_key,
  async answer({ run, input, graph }) {
    const bound = await graph();
    const key = subjectOf(run, bound, 'subject_key', input.subject_key);
    return {
      subject: bound ? normalizeNodeId(key) : null,
      kg_timeline: bound ? compareOverTime(bound, key) : [],
    };
  },
});

export const multiDocumentSynthesisAgent = knowledgeAgent({
  name: 'multi_document_synthesis_agent',
  request: Knowledge.SynthesisRequest,
  about: (_input, run) => run.query,
  async answer({ input, graph }) {
    const bound = await graph();
    const found = bound ? synthesize(bound, input.limit) : { groups: [], total_groups: 0 };
    return { kg_claim_groups: found.groups, total_groups: found.total_groups };
  },
});

export const contradictionReconciliationAgent = knowledgeAgent({
  name: 'contradiction_reconciliation_agent',
  request: Knowledge.ContradictionRequest,
  fallback: subjectFallback('subject_key'),
  about: (input) => input.subject_key,
  async answer({ run, input, graph }) {
    const bound = await graph();
    const key = subjectOf(run, bound, 'subject_key', input.subject_key);
    return {
      subject: bound ? normalizeNodeId(key) : null,
      kg_conflict_entries: bound ? detect(bound, key, input.predicate) : [],
    };
  },
});

export const knowledgeSummarizationAgent = knowledgeAgent({
  name: 'knowledge_summarization_agent',
  request: Knowledge.SummaryRequest,
  fallback: (query) => ({
    subject_keys: query
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean),
  }),
  about: (input) => input.subject_keys.join(', '),
  async answer({ input, graph }) {
    const bound = await graph();
    return { kg_video_summaries: bound ? summarize(bound, input.subject_keys) : [] };
  },
});

export const citationTracingAgent = knowledgeAgent({
  name: 'citation_tracing_agent',
  request: Knowledge.CitationRequest,
  fallback: subjectFallback('claim_id'),
  about: (input) => input.claim_id,
  async answer({ input, graph }) {
    const bound = await graph();
    const found = bound ? trace(bound, input.claim_id) : { claim: null, sources: [] };
    return { claim: found.claim, kg_primary_sources: found.sources };
  },
});

export const auditExplanationAgent = knowledgeAgent({
  name: 'audit_explanation_agent',
  request: Knowledge.AuditRequest,
  fallback: subjectFallback('workflow_id'),
  about: (input) => input.workflow_id,
  answer: ({ deps, run, input }) => explainRun(deps.events, run.tenant.full, input.workflow_id),
});

/** Each tenant's node hits for the query, labelled with the tenant (none where no graph is deployed). */
async function hitsPerTenant(deps: AgentsDeps, tenants: TenantId[], query: string, topK: number) {
  // Every named tenant is registered before any graph is read.
  const guarded = await Promise.all(
    tenants.map((tenant) => requireTenant(deps.content.tenancy, tenant.full)),
  );
  return Promise.all(
    guarded.map(async ({ tenant }) => {
      const graph = await bind(deps, tenant);
      const nodes =
        graph && deps.graph ? (await searchNodes(graph, deps.graph.encoder, query, topK)).nodes : [];
      return {
        tenant_id: tenant.full,
        graph_bound: graph !== undefined,
        nodes: nodes.map((node) => ({ ...node, tenant_id: tenant.full })),
      };
    }),
  );
}

export const crossTenantComparisonAgent = knowledgeAgent({
  name: 'cross_tenant_comparison_agent',
  request: Knowledge.CrossTenantRequest,
  fallback: (query) => ({ query }),
  about: (input) => input.query,
  async answer({ deps, run, input }) {
    const others = sameOrganization(run.tenant, input.other_tenant_ids).filter(
      (tenant) => tenant.full !== run.tenant.full,
    );
    const per = await hitsPerTenant(deps, [run.tenant, ...others], input.query, input.top_k);
    const found = per.map((entry) => new Set(entry.nodes.map((node) => node.node_id)));
    const shared = [...(found[0] ?? [])].filter((id) => found.every((ids) => ids.has(id))).sort();
    return {
      query: input.query,
      tenants: per.map((entry, i) => ({
        ...entry,
        count: entry.nodes.length,
        unique_node_ids: [...found[i]!].filter((id) => found.every((ids, j) => j === i || !ids.has(id))),
      })),
      shared_node_ids: shared,
    };
  },
});

export const federatedQueryAgent = knowledgeAgent({
  name: 'federated_query_agent',
  request: Knowledge.FederatedRequest,
  fallback: (query) => ({ query }),
  about: (input) => input.query,
  async answer({ deps, run, input }) {
    const tenants = sameOrganization(run.tenant, input.tenant_ids);
    const per = await hitsPerTenant(deps, tenants, input.query, input.top_k);
    const results = per
      .flatMap((entry) => entry.nodes)
      .sort((a, b) => b.score - a.score || (a.tenant_id < b.tenant_id ? -1 : 1))
      .slice(0, input.top_k);
    return {
      query: input.query,
      results,
      tenants: per.map(({ tenant_id, graph_bound, nodes }) => ({
        tenant_id,
        graph_bound,
        count: nodes.length,
      })),
      count: results.length,
    };
  },
});

export const KNOWLEDGE_AGENTS: Agent[] = [
  kgTraversalAgent,
  temporalReasoningAgent,
  multiDocumentSynthesisAgent,
  contradictionReconciliationAgent,
  knowledgeSummarizationAgent,
  citationTracingAgent,
  auditExplanationAgent,
  crossTenantComparisonAgent,
  federatedQueryAgent,
];

/** What a knowledge route's body asks, as the text its agent's memories are recalled by. */
export function knowledgeQuery(name: Agents.AgentName, body: Record<string, unknown>): string {
  const text = body.query ?? body.start_subject_key ?? body.subject_key ?? body.claim_id ?? body.workflow_id;
  if (typeof text === 'string') return text;
  if (Array.isArray(body.subject_keys)) return body.subject_keys.join(', ');
  return name.replace(/_agent$/, '').replace(/_/g, ' ');
}
