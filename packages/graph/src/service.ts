/** The graph endpoints' domain: tenant guard first, then the tenant's graph. */
import { type TenantId, tenantSchemaName } from '@tessera/core';
import type { MultiVectorEncoder } from '@tessera/encoders';
import {
  ensureTenantSchema,
  guardTenant,
  requireTenant,
  type TenancyDeps,
  type TenantRef,
} from '@tessera/tenancy';
import type { GraphWrite, UpsertRequest } from './model';
import { neighbors, searchNodes, shortestPath, stats } from './queries';
import type { GraphStore, UpsertCounts } from './store';
import type { TenantGraph } from './tenant-graph';

export const GRAPH_SCHEMA = 'knowledge_graph';

export interface GraphDeps {
  tenancy: TenancyDeps;
  store: GraphStore;
  encoder: MultiVectorEncoder;
}

async function tenantGraph(deps: GraphDeps, tenantId: string) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const schema = tenantSchemaName(GRAPH_SCHEMA, tenant);
  return { tenant: tenant.full, schema, graph: await deps.store.graph(schema) };
}

/**
 * Upserts several writes into a tenant's graph as one write (the graphs of a window of files), deploying
 * the graph schema on the tenant's first write; answers each write's counts.
 */
export async function upsertGraphs(
  deps: GraphDeps,
  tenant: TenantRef,
  writes: readonly GraphWrite[],
): Promise<UpsertCounts[]> {
  const guarded = await guardTenant(deps.tenancy, tenant);
  const schema = await ensureTenantSchema(deps.tenancy, guarded, GRAPH_SCHEMA);
  return writes.length === 0 ? [] : deps.store.upsert(schema, writes);
}

export async function upsertGraph(deps: GraphDeps, request: UpsertRequest) {
  const [counts] = await upsertGraphs(deps, request.tenant_id, [request]);
  return { status: 'upserted' as const, ...counts!, failed_ids: [] as string[] };
}

export async function graphSearch(deps: GraphDeps, tenantId: string, query: string, topK: number) {
  const { graph } = await tenantGraph(deps, tenantId);
  return searchNodes(graph, deps.encoder, query, topK);
}

export async function graphNeighbors(deps: GraphDeps, tenantId: string, node: string, depth: number) {
  const { tenant, graph } = await tenantGraph(deps, tenantId);
  return neighbors(graph, tenant, node, depth);
}

export async function graphPath(
  deps: GraphDeps,
  tenantId: string,
  source: string,
  target: string,
  maxDepth: number,
) {
  const { tenant, graph } = await tenantGraph(deps, tenantId);
  return shortestPath(graph, tenant, source, target, maxDepth);
}

/**
 * The tenant's graph bound to a knowledge agent at dispatch: undefined when the tenant has no graph
 * deployed (the agent then answers from its own memory, its `kg_*` fields empty).
 */
export async function boundGraph(deps: GraphDeps, tenant: TenantId): Promise<TenantGraph | undefined> {
  const graph = await deps.store.graph(tenantSchemaName(GRAPH_SCHEMA, tenant));
  return graph.version < 0 ? undefined : graph;
}

export async function graphStats(deps: GraphDeps, tenantId: string) {
  const { tenant, graph } = await tenantGraph(deps, tenantId);
  return stats(graph, tenant);
}
