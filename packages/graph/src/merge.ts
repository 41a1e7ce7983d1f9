/**
 * The merge rules of graph upserts, as pure functions over a tenant graph: a node named again merges its
 * mentions (union by source, segment, time span and modality), keeps the longer description and takes a
 * kind or label given; an edge's endpoints that are not nodes yet become nodes; an edge is stored again only
 * when what it says changed. Degree follows from the distinct edges (`TenantGraph.addEdge`).
 */
import { edgeId, normalizeNodeId } from './ids';
import { type EdgeInput, type GraphEdge, type GraphWrite, type Mention, mentionKey } from './model';
import type { UpsertCounts } from './store';
import type { NodeState, TenantGraph } from './tenant-graph';

export interface NodePatch {
  description?: string;
  kind?: 'entity' | 'concept';
  label?: string;
  mentions: Mention[];
}

/** What a batch of writes changes: nodes created or changed, edges new or changed, each write's counts. */
export interface UpsertPlan {
  nodes: Map<string, NodeState>;
  edges: Map<string, GraphEdge>;
  counts: UpsertCounts[];
}

/** A node as first named: no description, a concept, no mentions and no vectors yet. */
export function newNode(nodeId: string, name: string): NodeState {
  return {
    node_id: nodeId,
    name,
    description: '',
    kind: 'concept',
    label: 'Concept',
    mentions: [],
    mentionKeys: new Set(),
    codes: new Uint32Array(0),
    tokens: 0,
  };
}

/** The node after `patch` (a copy), or undefined when the patch changes nothing. */
export function mergeNode(current: NodeState, patch: NodePatch): NodeState | undefined {
  const next = { ...current, mentions: [...current.mentions], mentionKeys: new Set(current.mentionKeys) };
  let changed = false;
  const description = patch.description ?? '';
  if (description.length > next.description.length) {
    next.description = description;
    changed = true;
  }
  if (patch.kind && patch.kind !== next.kind) {
    next.kind = patch.kind;
    changed = true;
  }
  if (patch.label && patch.label !== next.label) {
    next.label = patch.label;
    changed = true;
  }
  for (const mention of patch.mentions) {
    const key = mentionKey(mention);
    if (next.mentionKeys.has(key)) continue;
    next.mentionKeys.add(key);
    next.mentions.push(mention);
    changed = true;
  }
  return changed ? next : undefined;
}

/** The stored form of an edge input; `source_doc_id` falls back to the write's. */
export function storedEdge(edge: EdgeInput, sourceDocId: string): GraphEdge {
  const source = normalizeNodeId(edge.source);
  const target = normalizeNodeId(edge.target);
  return {
    edge_id: edgeId(source, edge.relation, target, edge.segment_id, edge.ts_start, edge.ts_end),
    source_node_id: source,
    target_node_id: target,
    relation: edge.relation,
    evidence_span: edge.evidence_span,
    segment_id: edge.segment_id,
    ts_start: edge.ts_start,
    ts_end: edge.ts_end,
    modality: edge.modality,
    provenance: edge.provenance,
    source_doc_id: edge.source_doc_id ?? sourceDocId,
    confidence: edge.confidence,
  };
}

/** Whether a stored edge already says what `b` says (the id covers endpoints, relation, segment and span). */
export function sameEdge(a: GraphEdge, b: GraphEdge): boolean {
  return (
    a.evidence_span === b.evidence_span &&
    a.modality === b.modality &&
    a.provenance === b.provenance &&
    a.source_doc_id === b.source_doc_id &&
    a.confidence === b.confidence
  );
}

/** What one write names: its distinct nodes (edge endpoints included) and distinct edges. */
export function writeCounts(write: GraphWrite): UpsertCounts {
  const nodes = new Set(write.nodes.map((node) => normalizeNodeId(node.name)));
  const edges = new Set<string>();
  for (const edge of write.edges) {
    const stored = storedEdge(edge, write.source_doc_id);
    nodes.add(stored.source_node_id).add(stored.target_node_id);
    edges.add(stored.edge_id);
  }
  return { nodes_upserted: nodes.size, edges_upserted: edges.size };
}

/** Works out every change of the writes, in order, against `graph` (which it leaves as it is). */
export function planUpsert(graph: TenantGraph, writes: readonly GraphWrite[]): UpsertPlan {
  const nodes = new Map<string, NodeState>();
  const edges = new Map<string, GraphEdge>();
  const nodeOf = (id: string) => nodes.get(id) ?? graph.nodes.get(id);
  const merge = (name: string, patch: NodePatch) => {
    const id = normalizeNodeId(name);
    const current = nodeOf(id);
    const next = current
      ? mergeNode(current, patch)
      : (mergeNode(newNode(id, name), patch) ?? newNode(id, name));
    if (next) nodes.set(id, next);
  };
  for (const write of writes) {
    for (const node of write.nodes) merge(node.name, node);
    for (const edge of write.edges) {
      const stored = storedEdge(edge, write.source_doc_id);
      if (!nodeOf(stored.source_node_id)) merge(edge.source, { mentions: [] });
      if (!nodeOf(stored.target_node_id)) merge(edge.target, { mentions: [] });
      const existing = edges.get(stored.edge_id) ?? graph.edges.get(stored.edge_id);
      if (!existing || !sameEdge(existing, stored)) edges.set(stored.edge_id, stored);
    }
  }
  return { nodes, edges, counts: writes.map(writeCounts) };
}

/** The planned nodes whose text (name or description) changed, so their vectors must be computed again. */
export function nodesToEmbed(graph: TenantGraph, plan: UpsertPlan): NodeState[] {
  return [...plan.nodes.values()].filter((node) => {
    const before = graph.nodes.get(node.node_id);
    return !before || before.description !== node.description || before.name !== node.name;
  });
}

/** Brings the graph in memory to the plan, once the plan is stored. */
export function applyPlan(graph: TenantGraph, plan: UpsertPlan): void {
  for (const node of plan.nodes.values()) graph.setNode(node);
  for (const edge of plan.edges.values()) graph.addEdge(edge);
}
