/**
 * The graph methods of document 1's knowledge agents over a tenant's graph in memory: traverse,
 * compare_over_time, synthesize, detect, summarize and trace. Each starts from the adjacency of its subject
 * (or the edge-id map for a claim), never from a scan of every edge; only the query-agnostic synthesis reads
 * them all, once per graph state.
 */
import { NotFoundError } from '@tessera/core';
import { normalizeNodeId } from './ids';
import type { GraphEdge } from './model';
import type { TenantGraph } from './tenant-graph';

/** A traversal answers at most this many edges (and says when it stopped there). */
export const MAX_TRAVERSE_EDGES = 5000;
/** Claim groups a synthesis answers at most. */
export const MAX_CLAIM_GROUPS = 1000;

/** The subject's node id: 404 `Node '<key>' not found` when the graph has no such node. */
export function subjectNode(graph: TenantGraph, key: string): string {
  const id = normalizeNodeId(key);
  if (!id || !graph.nodes.has(id)) throw new NotFoundError(`Node '${key}' not found`);
  return id;
}

/** Every key's node id; one 404 naming each key the graph has no node for. */
export function subjectNodes(graph: TenantGraph, keys: readonly string[]): string[] {
  const missing = keys.filter((key) => {
    const id = normalizeNodeId(key);
    return !id || !graph.nodes.has(id);
  });
  if (missing.length === 1) throw new NotFoundError(`Node '${missing[0]}' not found`);
  if (missing.length > 1)
    throw new NotFoundError(`Nodes ${missing.map((key) => `'${key}'`).join(', ')} not found`);
  return [...new Set(keys.map(normalizeNodeId))];
}

const byTime = (a: GraphEdge, b: GraphEdge) =>
  a.ts_start - b.ts_start ||
  a.ts_end - b.ts_end ||
  (a.source_doc_id < b.source_doc_id ? -1 : a.source_doc_id > b.source_doc_id ? 1 : 0) ||
  (a.edge_id < b.edge_id ? -1 : a.edge_id > b.edge_id ? 1 : 0);

const outgoing = (graph: TenantGraph, nodeId: string): GraphEdge[] =>
  [...(graph.outIds(nodeId) ?? [])].map((id) => graph.edges.get(id)!);
const incoming = (graph: TenantGraph, nodeId: string): GraphEdge[] =>
  [...(graph.inIds(nodeId) ?? [])].map((id) => graph.edges.get(id)!);

function nodeView(graph: TenantGraph, nodeId: string, hop: number) {
  const node = graph.nodes.get(nodeId);
  return {
    node_id: nodeId,
    name: node?.name ?? nodeId,
    description: node?.description ?? '',
    kind: node?.kind ?? 'concept',
    label: node?.label ?? 'Concept',
    degree: graph.degree(nodeId),
    hop,
  };
}

/**
 * The graph traversal agent's method: the nodes and edges within `depth` hops of the subject, along
 * outgoing and incoming edges, breadth-first (each node with the hop it was first reached at, each edge
 * with the hop it was crossed at), at most MAX_TRAVERSE_EDGES edges.
 */
export function traverse(graph: TenantGraph, startKey: string, depth: number) {
  const start = subjectNode(graph, startKey);
  const hops = new Map([[start, 0]]);
  const seen = new Set<string>();
  const edges: (GraphEdge & { hop: number })[] = [];
  let frontier = [start];
  let truncated = false;
  for (let hop = 1; hop <= depth && frontier.length > 0 && !truncated; hop++) {
    const next: string[] = [];
    for (const nodeId of frontier) {
      for (const edgeId of [...(graph.outIds(nodeId) ?? []), ...(graph.inIds(nodeId) ?? [])]) {
        if (seen.has(edgeId)) continue;
        if (edges.length === MAX_TRAVERSE_EDGES) {
          truncated = true;
          break;
        }
        seen.add(edgeId);
        const edge = graph.edges.get(edgeId)!;
        edges.push({ ...edge, hop });
        for (const other of [edge.source_node_id, edge.target_node_id]) {
          if (hops.has(other)) continue;
          hops.set(other, hop);
          next.push(other);
        }
      }
      if (truncated) break;
    }
    frontier = next;
  }
  return {
    start_node_id: start,
    nodes: [...hops].map(([nodeId, hop]) => nodeView(graph, nodeId, hop)),
    edges,
    truncated,
  };
}

/**
 * The temporal reasoning agent's method: the subject's relations (its outgoing edges) ordered by
 * `ts_start`, then `ts_end`, then source document.
 */
export function compareOverTime(graph: TenantGraph, subjectKey: string) {
  const subject = subjectNode(graph, subjectKey);
  return outgoing(graph, subject)
    .sort(byTime)
    .map((edge) => ({
      edge_id: edge.edge_id,
      relation: edge.relation,
      target: edge.target_node_id,
      ts_start: edge.ts_start,
      ts_end: edge.ts_end,
      source_doc_id: edge.source_doc_id,
    }));
}

/** Where an edge was stated: its document, segment and time. */
const placeOf = (edge: GraphEdge) => ({
  source_doc_id: edge.source_doc_id,
  segment_id: edge.segment_id,
  ts_start: edge.ts_start,
  ts_end: edge.ts_end,
});

/** One claim as the synthesis, detection and summaries list it. */
function claimOf(edge: GraphEdge) {
  return {
    edge_id: edge.edge_id,
    subject: edge.source_node_id,
    predicate: edge.relation,
    object: edge.target_node_id,
    evidence_span: edge.evidence_span,
    ...placeOf(edge),
    confidence: edge.confidence,
  };
}

/**
 * The multi-document synthesis agent's method, query-agnostic: every claim (an edge of provenance
 * `INFERRED`, as the claim extractor writes them) grouped by subject and predicate; the groups resting on
 * the most source documents first, at most `limit`.
 */
export function synthesize(graph: TenantGraph, limit = MAX_CLAIM_GROUPS) {
  const groups = graph.memoize('claim_groups', () => {
    const bySubject = new Map<string, ReturnType<typeof claimOf>[]>();
    for (const edge of graph.edges.values()) {
      if (edge.provenance !== 'INFERRED') continue;
      const key = `${edge.source_node_id}\u0000${edge.relation}`;
      let claims = bySubject.get(key);
      if (!claims) {
        claims = [];
        bySubject.set(key, claims);
      }
      claims.push(claimOf(edge));
    }
    return [...bySubject.values()]
      .map((claims) => ({
        subject: claims[0]!.subject,
        predicate: claims[0]!.predicate,
        claims: claims.sort((a, b) => a.ts_start - b.ts_start || (a.edge_id < b.edge_id ? -1 : 1)),
        documents: new Set(claims.map((claim) => claim.source_doc_id)).size,
      }))
      .sort(
        (a, b) =>
          b.documents - a.documents ||
          b.claims.length - a.claims.length ||
          (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : a.predicate < b.predicate ? -1 : 1),
      );
  });
  return {
    groups: groups.slice(0, limit).map(({ subject, predicate, claims }) => ({ subject, predicate, claims })),
    total_groups: groups.length,
  };
}

function edgeEvidence(edge: GraphEdge) {
  return {
    edge_id: edge.edge_id,
    target: edge.target_node_id,
    evidence_span: edge.evidence_span,
    ...placeOf(edge),
  };
}

/**
 * The contradiction reconciliation agent's method: for the subject's predicates (or the one named), each
 * predicate whose edges name more than one object; and every `contradicts` edge from the subject, an entry
 * of predicate `contradicts`.
 */
export function detect(graph: TenantGraph, subjectKey: string, predicate?: string) {
  const subject = subjectNode(graph, subjectKey);
  const byPredicate = new Map<string, GraphEdge[]>();
  for (const edge of outgoing(graph, subject)) {
    if (predicate !== undefined && edge.relation !== predicate) continue;
    let edges = byPredicate.get(edge.relation);
    if (!edges) {
      edges = [];
      byPredicate.set(edge.relation, edges);
    }
    edges.push(edge);
  }
  const entries = [];
  for (const [relation, edges] of [...byPredicate].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const objects = [...new Set(edges.map((edge) => edge.target_node_id))].sort();
    if (relation !== 'contradicts' && objects.length < 2) continue;
    entries.push({ subject, predicate: relation, objects, edges: edges.sort(byTime).map(edgeEvidence) });
  }
  return entries;
}

/**
 * The knowledge summarization agent's method: per source document, the subjects it mentions or relates,
 * their claims in it (edges from or to a subject), and the time span they cover.
 */
export function summarize(graph: TenantGraph, subjectKeys: readonly string[]) {
  const subjects = subjectNodes(graph, subjectKeys);
  const docs = new Map<
    string,
    { subjects: Set<string>; claims: Map<string, GraphEdge>; start: number; end: number }
  >();
  const docOf = (id: string) => {
    let doc = docs.get(id);
    if (!doc) {
      doc = { subjects: new Set(), claims: new Map(), start: Number.POSITIVE_INFINITY, end: 0 };
      docs.set(id, doc);
    }
    return doc;
  };
  for (const subject of subjects) {
    for (const mention of graph.nodes.get(subject)!.mentions) {
      if (mention.source_doc_id === '') continue;
      const doc = docOf(mention.source_doc_id);
      doc.subjects.add(subject);
      doc.start = Math.min(doc.start, mention.ts_start);
      doc.end = Math.max(doc.end, mention.ts_end);
    }
    for (const edge of [...outgoing(graph, subject), ...incoming(graph, subject)]) {
      if (edge.source_doc_id === '') continue;
      const doc = docOf(edge.source_doc_id);
      doc.subjects.add(subject);
      doc.claims.set(edge.edge_id, edge);
      doc.start = Math.min(doc.start, edge.ts_start);
      doc.end = Math.max(doc.end, edge.ts_end);
    }
  }
  return [...docs]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([source_doc_id, doc]) => ({
      source_doc_id,
      subjects: [...doc.subjects].sort(),
      claims: [...doc.claims.values()].sort(byTime).map(claimOf),
      span: { ts_start: Number.isFinite(doc.start) ? doc.start : 0, ts_end: doc.end },
    }));
}

/**
 * The citation tracing agent's method: the claim's own evidence and segment first, then the same claim
 * (subject, predicate and object) as other segments or documents state it, in time order.
 */
export function trace(graph: TenantGraph, claimId: string) {
  const claim = graph.edges.get(claimId);
  if (!claim) throw new NotFoundError(`Claim '${claimId}' not found`);
  const same = outgoing(graph, claim.source_node_id)
    .filter(
      (edge) =>
        edge.edge_id !== claim.edge_id &&
        edge.relation === claim.relation &&
        edge.target_node_id === claim.target_node_id,
    )
    .sort(byTime);
  return {
    claim: claimOf(claim),
    sources: [claim, ...same].map((edge) => ({
      edge_id: edge.edge_id,
      evidence_span: edge.evidence_span,
      ...placeOf(edge),
      modality: edge.modality,
    })),
  };
}
