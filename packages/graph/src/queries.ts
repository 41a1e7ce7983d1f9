/** Reads of a tenant graph: node search, neighbors, shortest path and statistics. */
import { NotFoundError } from '@tessera/core';
import type { MultiVectorEncoder } from '@tessera/encoders';
import { binaryMaxSim, codeWords, type LanceContentIndex } from '@tessera/search';
import { normalizeNodeId } from './ids';
import type { GraphEdge } from './model';
import type { TenantGraph } from './tenant-graph';

const CANDIDATES = 100;

/** A node given by name or id. */
function resolve(graph: TenantGraph, ref: string, tenantId: string): string {
  const id = normalizeNodeId(ref);
  if (!id || !graph.nodes.has(id))
    throw new NotFoundError(`Node '${ref}' not found in the graph of tenant ${tenantId}`);
  return id;
}

/**
 * `hybrid_binary_bm25` for nodes: binary MaxSim of the query against each node's `embedding_binary`
 * (per query token `1 - 2h/128`, averaged) plus BM25 over name and description, summed.
 */
export async function searchNodes(
  graph: TenantGraph,
  text: LanceContentIndex,
  schema: string,
  encoder: MultiVectorEncoder,
  query: string,
  topK: number,
) {
  const [vectors] = await encoder.encode([query], 'query');
  const q = codeWords(vectors!.binary);
  const binary = new Map<string, number>();
  const scoreOf = (id: string) => {
    let score = binary.get(id);
    if (score === undefined) {
      const node = graph.nodes.get(id);
      score = node ? binaryMaxSim(q, vectors!.tokens, node.codes, 0, node.tokens) : 0;
      binary.set(id, score);
    }
    return score;
  };
  // Binary candidates: the best by binary MaxSim over every node; text candidates: BM25's best.
  const byBinary: { id: string; score: number }[] = [];
  if (vectors!.tokens > 0) {
    for (const id of graph.nodes.keys()) byBinary.push({ id, score: scoreOf(id) });
    byBinary.sort((a, b) => b.score - a.score);
  }
  const bm25 = new Map(
    (await text.bm25(schema, ['name', 'description'], query, CANDIDATES)).map((s) => [s.id, s.score]),
  );
  const candidates = new Set([...byBinary.slice(0, CANDIDATES).map((s) => s.id), ...bm25.keys()]);
  const ranked = [...candidates]
    .filter((id) => graph.nodes.has(id))
    .map((id) => ({ id, score: scoreOf(id) + (bm25.get(id) ?? 0) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, topK);
  const nodes = ranked.map(({ id, score }) => {
    const node = graph.nodes.get(id)!;
    return {
      node_id: id,
      name: node.name,
      description: node.description,
      kind: node.kind,
      label: node.label,
      degree: graph.degree(id),
      score,
    };
  });
  return { nodes, count: nodes.length };
}

type HopEdge = GraphEdge & { hop: number };

/** Edges along one direction from the node, breadth-first up to `depth` hops, each edge once. */
function walk(graph: TenantGraph, start: string, depth: number, direction: 'out' | 'in'): HopEdge[] {
  const seen = new Set<string>();
  const visited = new Set([start]);
  let frontier = [start];
  const found: HopEdge[] = [];
  for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
    const next: string[] = [];
    for (const nodeId of frontier) {
      for (const edge of direction === 'out' ? graph.out(nodeId) : graph.in(nodeId)) {
        if (seen.has(edge.edge_id)) continue;
        seen.add(edge.edge_id);
        found.push({ ...edge, hop });
        const other = direction === 'out' ? edge.target_node_id : edge.source_node_id;
        if (!visited.has(other)) {
          visited.add(other);
          next.push(other);
        }
      }
    }
    frontier = next;
  }
  return found;
}

export function neighbors(graph: TenantGraph, tenantId: string, ref: string, depth: number) {
  const id = resolve(graph, ref, tenantId);
  // One hop is the plain neighborhood; beyond it each edge says how far out it was reached.
  const strip = (edges: HopEdge[]): (GraphEdge & { hop?: number })[] =>
    depth === 1 ? edges.map(({ hop: _hop, ...edge }) => edge) : edges;
  return {
    node_id: id,
    name: graph.nodes.get(id)!.name,
    out_edges: strip(walk(graph, id, depth, 'out')),
    in_edges: strip(walk(graph, id, depth, 'in')),
  };
}

/** Shortest path over outgoing edges, breadth-first, at most `maxDepth` edges long. */
export function shortestPath(
  graph: TenantGraph,
  tenantId: string,
  sourceRef: string,
  targetRef: string,
  maxDepth: number,
) {
  const source = resolve(graph, sourceRef, tenantId);
  const target = resolve(graph, targetRef, tenantId);
  if (source === target) return { source, target, path: [source], length: 0 };
  const parent = new Map<string, string>([[source, source]]);
  let frontier = [source];
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const nodeId of frontier) {
      for (const edgeId of graph.outIds(nodeId) ?? []) {
        const other = graph.edges.get(edgeId)!.target_node_id;
        if (parent.has(other)) continue;
        parent.set(other, nodeId);
        if (other === target) {
          const path = [target];
          for (let at = target; at !== source; ) {
            at = parent.get(at)!;
            path.unshift(at);
          }
          return { source, target, path, length: path.length - 1 };
        }
        next.push(other);
      }
    }
    frontier = next;
  }
  return { source, target, path: null, length: -1 };
}

export function stats(graph: TenantGraph, tenantId: string) {
  const top: { node_id: string; name: string; degree: number }[] = [];
  for (const [id, node] of graph.nodes) {
    const degree = graph.degree(id);
    if (top.length === 10 && degree <= top[9]!.degree) continue;
    top.push({ node_id: id, name: node.name, degree });
    top.sort((a, b) => b.degree - a.degree || (a.node_id < b.node_id ? -1 : 1));
    if (top.length > 10) top.pop();
  }
  return { tenant_id: tenantId, node_count: graph.nodes.size, edge_count: graph.edges.size, top_nodes: top };
}
