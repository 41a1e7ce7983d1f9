/** Knowledge routes: each runs its knowledge agent for the tenant of the path, the tenant's graph bound. */
import { agents, runKnowledgeAgent } from '@tessera/agents';
import { Knowledge } from '@tessera/api';
import { tracing } from '@tessera/config';
import { httpRoute, type RouteRequest, requestBaseUrl, requestDeadline } from '@tessera/http';

const deps = agents();
// Spans of this module follow tenants' telemetry records.
tracing();

/** Time kept back from a function's remaining time to answer after a run is cancelled. */
const ANSWER_MARGIN_MS = 1500;

type Route = (typeof Knowledge)[
  | 'traverse'
  | 'temporalCompare'
  | 'synthesize'
  | 'detectContradictions'
  | 'summarize'
  | 'traceCitation'
  | 'explainAudit'
  | 'compareTenants'
  | 'federatedQuery'];

/** The route of `agent`: its body is the agent's task context. */
function knowledgeRoute<const R extends Route>(contract: R, agent: Knowledge.KnowledgeAgentName) {
  return httpRoute(
    contract,
    ({ path, body, event, context }: RouteRequest<R>) =>
      runKnowledgeAgent(deps, agent, path.tenant_full_id, body as Record<string, unknown>, {
        baseUrl: requestBaseUrl(event),
        signal: requestDeadline(context, ANSWER_MARGIN_MS),
      }) as never,
  );
}

export const traverse = knowledgeRoute(Knowledge.traverse, 'kg_traversal_agent');
export const temporalCompare = knowledgeRoute(Knowledge.temporalCompare, 'temporal_reasoning_agent');
export const synthesize = knowledgeRoute(Knowledge.synthesize, 'multi_document_synthesis_agent');
export const detectContradictions = knowledgeRoute(
  Knowledge.detectContradictions,
  'contradiction_reconciliation_agent',
);
export const summarize = knowledgeRoute(Knowledge.summarize, 'knowledge_summarization_agent');
export const traceCitation = knowledgeRoute(Knowledge.traceCitation, 'citation_tracing_agent');
export const explainAudit = knowledgeRoute(Knowledge.explainAudit, 'audit_explanation_agent');
export const compareTenants = knowledgeRoute(Knowledge.compareTenants, 'cross_tenant_comparison_agent');
export const federatedQuery = knowledgeRoute(Knowledge.federatedQuery, 'federated_query_agent');
