/** Knowledge graph routes (document 1): upsert, node search, neighbors, shortest path and statistics. */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';
import { NodeRef, name } from './ids';
import { queryInt } from './params';

/**
 * `node_id` of a name: Unicode NFD, non-ASCII dropped, each run of characters outside [A-Za-z0-9] replaced
 * by `_`, `_` trimmed at both ends, lower-cased. `"What's New?"` → `what_s_new`. May be empty.
 */
export function normalizeNodeId(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[^\p{ASCII}]/gu, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** A time in seconds into a medium: at most 10^9 (about 31 years). */
const seconds = z.number().min(0).max(1e9);

export const Mention = z
  .object({
    source_doc_id: name(1000).default(''),
    segment_id: name(1000).default(''),
    ts_start: seconds.default(0),
    ts_end: seconds.default(0),
    modality: name(50).default('text'),
    evidence_span: z.string().max(10_000).default(''),
  })
  .meta({ id: 'Mention' });
export type Mention = z.infer<typeof Mention>;

const nodeName = z
  .string()
  .min(1)
  .max(1000)
  .refine((name) => normalizeNodeId(name) !== '', {
    message: 'name has no ASCII letter or digit, so its node_id would be empty',
  });

export const NodeKind = z.enum(['entity', 'concept']);
export type NodeKind = z.infer<typeof NodeKind>;

export const NodeInput = z
  .object({
    name: nodeName,
    description: z.string().max(10_000).optional().meta({ description: 'Default empty.' }),
    kind: NodeKind.optional().meta({ description: 'Default `concept`.' }),
    label: name(100, 1).optional().meta({ description: 'Default `Concept`.' }),
    mentions: z.array(Mention).max(1000).default([]),
  })
  .meta({ id: 'NodeInput' });
export type NodeInput = z.infer<typeof NodeInput>;

export const EdgeInput = z
  .object({
    source: nodeName,
    target: nodeName,
    relation: name(200).trim().min(1),
    evidence_span: z.string().max(10_000),
    segment_id: name(1000),
    ts_start: seconds,
    ts_end: seconds,
    modality: name(50, 1),
    provenance: name(100, 1).default('EXTRACTED'),
    source_doc_id: name(1000).optional(),
    confidence: z.number().min(0).max(1).default(1),
  })
  .meta({ id: 'EdgeInput' });
export type EdgeInput = z.infer<typeof EdgeInput>;

/** Nodes, and edges, one upsert takes at most. */
export const MAX_ITEMS = 10_000;

export const UpsertRequest = z.object({
  tenant_id: z.string(),
  source_doc_id: name(1000).default(''),
  nodes: z.array(NodeInput).max(MAX_ITEMS).default([]),
  edges: z.array(EdgeInput).max(MAX_ITEMS).default([]),
});
export type UpsertRequest = z.infer<typeof UpsertRequest>;

export const UpsertResult = z.object({
  status: z.enum(['upserted', 'partially_upserted']),
  nodes_upserted: z.number().int(),
  edges_upserted: z.number().int(),
  failed_ids: z.array(z.string()),
});
export type UpsertResult = z.infer<typeof UpsertResult>;

export const GraphNode = z.object({
  node_id: z.string(),
  name: z.string(),
  description: z.string(),
  kind: NodeKind,
  label: z.string(),
  mentions: z.array(Mention),
});
export type GraphNode = z.infer<typeof GraphNode>;

export const GraphEdge = z
  .object({
    edge_id: z.string(),
    source_node_id: z.string(),
    target_node_id: z.string(),
    relation: z.string(),
    evidence_span: z.string(),
    segment_id: z.string(),
    ts_start: z.number(),
    ts_end: z.number(),
    modality: z.string(),
    provenance: z.string(),
    source_doc_id: z.string(),
    confidence: z.number(),
  })
  .meta({ id: 'GraphEdge' });
export type GraphEdge = z.infer<typeof GraphEdge>;

export const NodeHit = z.object({
  node_id: z.string(),
  name: z.string(),
  description: z.string(),
  kind: NodeKind,
  label: z.string(),
  degree: z.number().int(),
  score: z.number(),
});
export type NodeHit = z.infer<typeof NodeHit>;

export const NodeSearch = z.object({ nodes: z.array(NodeHit), count: z.number().int() });
export type NodeSearch = z.infer<typeof NodeSearch>;

const NeighborEdge = GraphEdge.extend({
  hop: z
    .number()
    .int()
    .optional()
    .meta({ description: 'How many hops out the edge was reached (depth > 1).' }),
});

export const Neighbors = z.object({
  node_id: z.string(),
  name: z.string(),
  out_edges: z.array(NeighborEdge),
  in_edges: z.array(NeighborEdge),
});
export type Neighbors = z.infer<typeof Neighbors>;

export const GraphPath = z.object({
  source: z.string(),
  target: z.string(),
  path: z
    .array(z.string())
    .nullable()
    .meta({ description: 'Node ids from source to target; null when none.' }),
  length: z.number().int().meta({ description: 'Edges on the path; -1 when there is none.' }),
});
export type GraphPath = z.infer<typeof GraphPath>;

export const GraphStats = z.object({
  tenant_id: z.string(),
  node_count: z.number().int(),
  edge_count: z.number().int(),
  top_nodes: z.array(z.object({ node_id: z.string(), name: z.string(), degree: z.number().int() })),
});
export type GraphStats = z.infer<typeof GraphStats>;

const tenant = { tenant_id: z.string() };

export const SearchQuery = z.object({
  ...tenant,
  q: z.string().min(1).max(1000),
  top_k: queryInt({ min: 1, max: 100, default: 10 }),
});
export const NeighborsQuery = z.object({
  ...tenant,
  node: NodeRef.meta({ description: 'A node name or id.' }),
  depth: queryInt({ min: 1, max: 3, default: 1 }),
});
export const PathQuery = z.object({
  ...tenant,
  source: NodeRef,
  target: NodeRef,
  max_depth: queryInt({ min: 1, max: 6, default: 4 }),
});
export const StatsQuery = z.object(tenant);

const modelFailed = plain('The embedding service failed.');
const unknownNode = plain("`Node '<ref>' not found in the graph of tenant <id>`.");

export const upsert = route({
  id: 'upsert',
  group: 'graph',
  method: 'POST',
  route: '/graph/upsert',
  summary: "Merge nodes and edges into the tenant's graph",
  description: 'A request with any invalid part answers 422 and writes nothing.',
  // Unknown fields refused at the API; the domain's callers (extractors) may hand over a graph with more.
  body: UpsertRequest.strict(),
  responses: { 200: { description: 'How many nodes and edges were written.', schema: UpsertResult } },
  errors: { ...tenantGuard, 502: modelFailed, 503: outage },
});

export const search = route({
  id: 'search',
  group: 'graph',
  method: 'GET',
  route: '/graph/search',
  summary: 'Nodes by binary MaxSim of the query plus BM25 over name and description',
  query: SearchQuery,
  responses: { 200: { description: 'The best nodes.', schema: NodeSearch } },
  errors: { ...tenantGuard, 502: modelFailed, 503: outage },
});

export const neighbors = route({
  id: 'neighbors',
  group: 'graph',
  method: 'GET',
  route: '/graph/neighbors',
  summary: "A node's edges, out to `depth` hops",
  query: NeighborsQuery,
  responses: { 200: { description: 'Outgoing and incoming edges.', schema: Neighbors } },
  errors: {
    ...tenantGuard,
    404: plain(`${tenantGuard[404].description} Or ${unknownNode.description}`),
    503: outage,
  },
});

export const path = route({
  id: 'path',
  group: 'graph',
  method: 'GET',
  route: '/graph/path',
  summary: 'The shortest path over outgoing edges',
  query: PathQuery,
  responses: { 200: { description: 'The path, or null and -1 when none.', schema: GraphPath } },
  errors: {
    ...tenantGuard,
    404: plain(`${tenantGuard[404].description} Or ${unknownNode.description}`),
    503: outage,
  },
});

export const stats = route({
  id: 'stats',
  group: 'graph',
  method: 'GET',
  route: '/graph/stats',
  summary: 'Node and edge counts and the ten highest-degree nodes',
  query: StatsQuery,
  responses: { 200: { description: 'The counts.', schema: GraphStats } },
  errors: { ...tenantGuard, 503: outage },
});
