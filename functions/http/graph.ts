/** Knowledge graph routes. */
import {
  graphDeps,
  graphNeighbors,
  graphPath,
  graphSearch,
  graphStats,
  UpsertRequest,
  upsertGraph,
} from '@tessera/graph';
import { httpRoute, queryInt } from '@tessera/http';
import { z } from 'zod';

const deps = graphDeps();
const tenant = { tenant_id: z.string() };

export const upsert = httpRoute({ body: UpsertRequest }, ({ body }) => upsertGraph(deps, body));

export const search = httpRoute(
  {
    query: z.object({ ...tenant, q: z.string().min(1), top_k: queryInt({ min: 1, max: 100, default: 10 }) }),
  },
  ({ query }) => graphSearch(deps, query.tenant_id, query.q, query.top_k),
);

export const neighbors = httpRoute(
  {
    query: z.object({ ...tenant, node: z.string().min(1), depth: queryInt({ min: 1, max: 3, default: 1 }) }),
  },
  ({ query }) => graphNeighbors(deps, query.tenant_id, query.node, query.depth),
);

export const path = httpRoute(
  {
    query: z.object({
      ...tenant,
      source: z.string().min(1),
      target: z.string().min(1),
      max_depth: queryInt({ min: 1, max: 6, default: 4 }),
    }),
  },
  ({ query }) => graphPath(deps, query.tenant_id, query.source, query.target, query.max_depth),
);

export const stats = httpRoute({ query: z.object(tenant) }, ({ query }) => graphStats(deps, query.tenant_id));
