export { edgeId, normalizeNodeId, pythonFloat } from './ids';
export {
  compareOverTime,
  detect,
  MAX_CLAIM_GROUPS,
  MAX_TRAVERSE_EDGES,
  subjectNode,
  subjectNodes,
  summarize,
  synthesize,
  trace,
  traverse,
} from './knowledge';
export { LanceGraphStore } from './lance-graph-store';
export type { NodePatch, UpsertPlan } from './merge';
export {
  applyPlan,
  mergeNode,
  newNode,
  nodesToEmbed,
  planUpsert,
  sameEdge,
  storedEdge,
  writeCounts,
} from './merge';
export type { GraphEdge, GraphNode } from './model';
export { EdgeInput, GraphWrite, MAX_ITEMS, Mention, NodeInput, UpsertRequest } from './model';
export { embedNodes } from './node-vectors';
export { neighbors, searchNodes, shortestPath, stats } from './queries';
export type { GraphDeps } from './service';
export {
  boundGraph,
  GRAPH_SCHEMA,
  graphNeighbors,
  graphPath,
  graphSearch,
  graphStats,
  upsertGraph,
  upsertGraphs,
} from './service';
export type { GraphStore, UpsertCounts } from './store';
export type { NodeState } from './tenant-graph';
export { TenantGraph } from './tenant-graph';
export { NodeTextIndex } from './text-index';
export { graphDeps } from './wiring';
