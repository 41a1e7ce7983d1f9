/** Reads of a tenant graph: node search, neighbors, shortest path and statistics. */
import { NotFoundError } from '@tessera/core';
import type { MultiVectorEncoder } from '@tessera/encoders';
import { binaryMaxSim, codeWords } from '@tessera/search';
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
    // Keep the best CANDIDATES without sorting every node: a floor rises as better ones arrive.
    let floor = Number.NEGATIVE_INFINITY;
    graph.scanCodes(
      (words, start, tokens) => binaryMaxSim(q, vectors!.tokens, words, start, tokens),
      (id, score) => {
        if (score <= floor) return;
        binary.set(id, score);
        byBinary.push({ id, score });
        if (byBinary.length >= CANDIDATES * 2) {
          byBinary.sort((a, b) => b.score - a.score);
          byBinary.length = CANDIDATES;
          floor = byBinary[CANDIDATES - 1]!.score;
        }
      },
    );
    byBinary.sort((a, b) => b.score - a.score);
  }
  const bm25 = new Map(graph.text.search(query, CANDIDATES).map((s) => [s.id, s.score]));
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

/**
 * Shortest path over outgoing edges, at most `maxDepth` edges long: breadth-first from both ends at once
 * (forward along outgoing edges, backward along incoming ones), always growing the smaller frontier.
 */
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
  // Parent and distance of every node reached from each end.
  const forward = new Map<string, [string, number]>([[source, [source, 0]]]);
  const backward = new Map<string, [string, number]>([[target, [target, 0]]]);
  let front = [source];
  let back = [target];
  for (let level = 0; level < maxDepth && front.length > 0 && back.length > 0; level++) {
    const growForward = front.length <= back.length;
    const [seen, other] = growForward ? [forward, backward] : [backward, forward];
    const next: string[] = [];
    // Finish the level and keep its shortest meeting point.
    let best: { node: string; length: number } | undefined;
    for (const nodeId of growForward ? front : back) {
      const distance = seen.get(nodeId)![1] + 1;
      for (const edgeId of (growForward ? graph.outIds(nodeId) : graph.inIds(nodeId)) ?? []) {
        const edge = graph.edges.get(edgeId)!;
        const reached = growForward ? edge.target_node_id : edge.source_node_id;
        if (seen.has(reached)) continue;
        seen.set(reached, [nodeId, distance]);
        next.push(reached);
        const meet = other.get(reached);
        if (meet && (!best || distance + meet[1] < best.length))
          best = { node: reached, length: distance + meet[1] };
      }
    }
    if (best && best.length <= maxDepth) {
      const path = [best.node];
      for (let at = best.node; at !== source; ) {
        at = forward.get(at)![0];
        path.unshift(at);
      }
      for (let at = best.node; at !== target; ) {
        at = backward.get(at)![0];
        path.push(at);
      }
      return { source, target, path, length: path.length - 1 };
    }
    if (growForward) front = next;
    else back = next;
  }
  return { source, target, path: null, length: -1 };
}

export function stats(graph: TenantGraph, tenantId: string) {
  return { tenant_id: tenantId, ...graph.memoize('stats', () => computeStats(graph)) };
}

function computeStats(graph: TenantGraph) {
  const top: { node_id: string; degree: number }[] = [];
  const better = (a: { node_id: string; degree: number }, b: { node_id: string; degree: number }) =>
    a.degree > b.degree || (a.degree === b.degree && a.node_id < b.node_id);
  const consider = (nodeId: string, degree: number) => {
    if (top.length === 10 && !better({ node_id: nodeId, degree }, top[9]!)) return;
    let at = Math.min(top.length, 9);
    top[at] = { node_id: nodeId, degree };
    for (; at > 0 && better(top[at]!, top[at - 1]!); at--) [top[at], top[at - 1]] = [top[at - 1]!, top[at]!];
  };
  for (const [nodeId, degree] of graph.degreeEntries()) consider(nodeId, degree);
  // Nodes without edges only show when fewer than ten nodes have any.
  if (top.length < 10)
    for (const nodeId of graph.nodes.keys()) if (graph.degree(nodeId) === 0) consider(nodeId, 0);
  return {
    node_count: graph.nodes.size,
    edge_count: graph.edges.size,
    top_nodes: top.map(({ node_id, degree }) => ({
      node_id,
      name: graph.nodes.get(node_id)?.name ?? node_id,
      degree,
    })),
  };
}
