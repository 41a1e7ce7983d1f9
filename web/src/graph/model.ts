/**
 * The explorer's graph: the part of the tenant's knowledge graph the user has opened, held in graphology and
 * capped so a tenant with 100,000 nodes stays responsive. Expanding a node adds its neighbours a page at a
 * time ("load more"); the whole view never holds more than `MAX_NODES` nodes.
 */
import type { Graph as Api } from '@tessera/api';
import Graph from 'graphology';

export const NEIGHBOR_PAGE = 25;
export const MAX_NODES = 1500;

export interface NodeAttributes {
  label: string;
  x: number;
  y: number;
  size: number;
  color: string;
  /** Known degree in the tenant's graph (from stats or search), if any. */
  degree?: number;
  description?: string;
  kind?: string;
}

export interface EdgeAttributes {
  relation: string;
  size: number;
  color: string;
  /** An edge known only as a step of a found path. */
  pathOnly?: boolean;
}

export type ExplorerGraph = Graph<NodeAttributes, EdgeAttributes>;

/** A node's neighbours not shown yet: what "load more" adds. */
export interface Pending {
  edges: Api.GraphEdge[];
  /** How many of the node's edges were already taken. */
  taken: number;
}

export const COLORS = {
  node: '#5b7fb8',
  seed: '#2457c5',
  selected: '#d9480f',
  path: '#e8590c',
  edge: '#b8c2d1',
  pathEdge: '#e8590c',
};

export function createGraph(): ExplorerGraph {
  return new Graph<NodeAttributes, EdgeAttributes>({ multi: true, type: 'directed', allowSelfLoops: true });
}

const sizeFor = (degree?: number) => (degree ? Math.min(18, 4 + Math.log2(1 + degree) * 2) : 5);

/** Adds (or updates) a node; answers false when the view is full and the node is new. */
export function addNode(
  graph: ExplorerGraph,
  id: string,
  info: { name?: string; degree?: number; description?: string; kind?: string; near?: string } = {},
): boolean {
  if (graph.hasNode(id)) {
    graph.mergeNodeAttributes(id, {
      ...(info.name ? { label: info.name } : {}),
      ...(info.degree !== undefined ? { degree: info.degree, size: sizeFor(info.degree) } : {}),
      ...(info.description ? { description: info.description } : {}),
      ...(info.kind ? { kind: info.kind } : {}),
    });
    return true;
  }
  if (graph.order >= MAX_NODES) return false;
  const anchor = info.near && graph.hasNode(info.near) ? graph.getNodeAttributes(info.near) : undefined;
  // New nodes start around the node they hang from (or on a spiral around the centre): no layout pass is
  // needed for a readable picture, and the camera does not jump.
  const turn = graph.order * 2.39996; // the golden angle
  const radius = anchor ? 1 + Math.random() * 0.6 : 1.5 * Math.sqrt(graph.order + 1);
  graph.addNode(id, {
    label: info.name ?? id,
    x: (anchor?.x ?? 0) + radius * Math.cos(turn),
    y: (anchor?.y ?? 0) + radius * Math.sin(turn),
    size: sizeFor(info.degree),
    color: COLORS.node,
    degree: info.degree,
    description: info.description,
    kind: info.kind,
  });
  return true;
}

function addEdge(graph: ExplorerGraph, edge: Api.GraphEdge): void {
  if (graph.hasEdge(edge.edge_id)) return;
  if (!graph.hasNode(edge.source_node_id) || !graph.hasNode(edge.target_node_id)) return;
  // A path-only edge between the same nodes gives way to the real one.
  for (const existing of graph.outEdges(edge.source_node_id, edge.target_node_id)) {
    if (graph.getEdgeAttribute(existing, 'pathOnly')) graph.dropEdge(existing);
  }
  graph.addDirectedEdgeWithKey(edge.edge_id, edge.source_node_id, edge.target_node_id, {
    relation: edge.relation,
    size: 1.5,
    color: COLORS.edge,
  });
}

/** Every distinct edge of a neighbours answer, strongest first (confidence, then relation). */
export function edgesOf(answer: Api.Neighbors): Api.GraphEdge[] {
  const seen = new Set<string>();
  const all: Api.GraphEdge[] = [];
  for (const edge of [...answer.out_edges, ...answer.in_edges]) {
    if (seen.has(edge.edge_id)) continue;
    seen.add(edge.edge_id);
    all.push(edge);
  }
  return all.sort((a, b) => b.confidence - a.confidence || a.relation.localeCompare(b.relation));
}

/**
 * Adds the next page of `pending`'s edges around `center`: their other ends as nodes, then the edges, and
 * edges whose both ends are shown. Answers what is left, and whether the view ran full.
 */
export function addNeighborPage(
  graph: ExplorerGraph,
  center: string,
  pending: Pending,
  page = NEIGHBOR_PAGE,
): { pending: Pending; full: boolean } {
  let taken = pending.taken;
  let added = 0;
  let full = false;
  while (taken < pending.edges.length && added < page) {
    const edge = pending.edges[taken]!;
    const other = edge.source_node_id === center ? edge.target_node_id : edge.source_node_id;
    const isNew = !graph.hasNode(other);
    if (!addNode(graph, other, { near: center })) {
      full = true;
      break;
    }
    addEdge(graph, edge);
    taken++;
    if (isNew) added++;
  }
  return { pending: { edges: pending.edges, taken }, full };
}

/** Shows a found path: its nodes (added when missing) and a step between each pair not joined yet. */
export function addPath(graph: ExplorerGraph, path: string[]): boolean {
  for (let i = 0; i < path.length; i++) {
    if (!addNode(graph, path[i]!, { near: i > 0 ? path[i - 1] : undefined })) return false;
  }
  for (let i = 1; i < path.length; i++) {
    const [from, to] = [path[i - 1]!, path[i]!];
    if (graph.outEdges(from, to).length === 0)
      graph.addDirectedEdge(from, to, { relation: 'path', size: 2, color: COLORS.pathEdge, pathOnly: true });
  }
  return true;
}

/** The edges along `path` (every edge from each node to the next). */
export function pathEdges(graph: ExplorerGraph, path: string[]): Set<string> {
  const edges = new Set<string>();
  for (let i = 1; i < path.length; i++) {
    const [from, to] = [path[i - 1]!, path[i]!];
    if (graph.hasNode(from) && graph.hasNode(to))
      for (const edge of graph.outEdges(from, to)) edges.add(edge);
  }
  return edges;
}
