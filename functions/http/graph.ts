/** Knowledge graph routes. */
import { Graph } from '@tessera/api';
import { tracing } from '@tessera/config';
import { graphDeps, graphNeighbors, graphPath, graphSearch, graphStats, upsertGraph } from '@tessera/graph';
import { httpRoute } from '@tessera/http';

const deps = graphDeps();
// Spans of this module follow tenants' telemetry records.
tracing();

export const upsert = httpRoute(Graph.upsert, ({ body }) => upsertGraph(deps, body));

export const search = httpRoute(Graph.search, ({ query }) =>
  graphSearch(deps, query.tenant_id, query.q, query.top_k),
);

export const neighbors = httpRoute(Graph.neighbors, ({ query }) =>
  graphNeighbors(deps, query.tenant_id, query.node, query.depth),
);

export const path = httpRoute(Graph.path, ({ query }) =>
  graphPath(deps, query.tenant_id, query.source, query.target, query.max_depth),
);

export const stats = httpRoute(Graph.stats, ({ query }) => graphStats(deps, query.tenant_id));
