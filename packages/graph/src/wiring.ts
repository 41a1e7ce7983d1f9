/** The production wiring of the graph domain. */
import { createMultiVectorEncoder } from '@tessera/encoders';
import { platformEnv } from '@tessera/platform';
import { tenancy } from '@tessera/tenancy';
import { GRAPH_SCHEMA, type GraphDeps } from './service';
import { GraphStore } from './store';

let deps: GraphDeps | undefined;

export function graphDeps(): GraphDeps {
  if (deps) return deps;
  const tenancyDeps = tenancy();
  const encoder = createMultiVectorEncoder();
  deps = {
    tenancy: tenancyDeps,
    encoder,
    store: new GraphStore(platformEnv.searchUri, tenancyDeps.catalog.get(GRAPH_SCHEMA)!, encoder),
  };
  return deps;
}
