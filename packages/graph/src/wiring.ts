/** The production wiring of the graph domain. */
import { createMultiVectorEncoder } from '@tessera/encoders';
import { platformEnv } from '@tessera/platform';
import { lanceConnection } from '@tessera/search';
import { tenancy } from '@tessera/tenancy';
import { LanceGraphStore } from './lance-graph-store';
import { GRAPH_SCHEMA, type GraphDeps } from './service';

let deps: GraphDeps | undefined;

export function graphDeps(): GraphDeps {
  if (deps) return deps;
  const tenancyDeps = tenancy();
  const encoder = createMultiVectorEncoder();
  deps = {
    tenancy: tenancyDeps,
    encoder,
    store: new LanceGraphStore(
      lanceConnection(platformEnv.searchUri),
      tenancyDeps.catalog.get(GRAPH_SCHEMA)!,
      encoder,
    ),
  };
  return deps;
}
