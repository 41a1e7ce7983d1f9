/** The production wiring of the wiki, built once per process. */
import type { TenantDataOwner } from '@tessera/core';
import { platformEnv } from '@tessera/platform';
import { lanceConnection } from '@tessera/search';
import { tenancy } from '@tessera/tenancy';
import { DynamoPageLocks } from './dynamo-locks';
import { LanceWikiStore } from './lance-wiki-store';
import { WIKI_SCHEMA, type WikiDeps, wikiSchemaOf } from './service';

let deps: WikiDeps | undefined;

export function wiki(): WikiDeps {
  if (deps) return deps;
  const tenancyDeps = tenancy();
  deps = {
    tenancy: tenancyDeps,
    store: new LanceWikiStore(
      lanceConnection(platformEnv.searchUri),
      tenancyDeps.catalog.get(WIKI_SCHEMA)!,
      new DynamoPageLocks(),
    ),
    now: Date.now,
  };
  return deps;
}

/**
 * The tenant's wiki: its pages live in its wiki schema, which the tenant delete drops with its other
 * schemas; this owner removes what else the wiki keeps of it (page locks, the search index in memory).
 */
export function wikiData(of: WikiDeps): TenantDataOwner {
  return {
    name: 'wiki pages',
    purge: async (tenant) => {
      await of.store.purge(wikiSchemaOf(tenant));
    },
  };
}
