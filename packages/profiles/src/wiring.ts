/** The production wiring of the profiles domain, built once per process. */
import path from 'node:path';
import { KeyedSerializer, type TenantDataOwner } from '@tessera/core';
import { platformEnv } from '@tessera/platform';
import { ProfileCatalog } from '@tessera/search';
import { tenancy } from '@tessera/tenancy';
import type { ProfilesDeps } from './deps';
import { DynamoProfileStore } from './dynamo-store';
import { profilesEnv } from './env';
import { purgeTenantProfiles } from './profiles';
import { ProfileViews } from './views';

let deps: ProfilesDeps | undefined;

export function profiles(): ProfilesDeps {
  if (deps) return deps;
  const tenancyDeps = tenancy();
  deps = {
    store: new DynamoProfileStore(),
    tenancy: tenancyDeps,
    shipped: new ProfileCatalog(path.join(platformEnv.configDir, 'profiles'), tenancyDeps.catalog),
    views: new ProfileViews(profilesEnv.cacheMs),
    writes: new KeyedSerializer(),
    now: Date.now,
  };
  return deps;
}

/** The tenant's profiles, emptied by a tenant delete (registered in functions/tenant-data.ts). */
export function profilesData(of: ProfilesDeps): TenantDataOwner {
  return {
    name: 'profiles',
    purge: async (tenant) => {
      await purgeTenantProfiles(of, tenant.full);
    },
  };
}
