export { edgeId, normalizeNodeId, pythonFloat } from './ids';
export type { GraphEdge, GraphNode } from './model';
export { EdgeInput, MAX_ITEMS, Mention, NodeInput, UpsertRequest } from './model';
export { neighbors, searchNodes, shortestPath, stats } from './queries';
export type { GraphDeps } from './service';
export { GRAPH_SCHEMA, graphNeighbors, graphPath, graphSearch, graphStats, upsertGraph } from './service';
export { GraphStore } from './store';
export { TenantGraph } from './tenant-graph';
export { graphDeps } from './wiring';
