/** The production wiring of the configuration records, built once per process. */
import { KeyedSerializer, type TenantDataOwner } from '@tessera/core';
import { tenancy } from '@tessera/tenancy';
import { ConfigCache } from './cache';
import type { ConfigDeps } from './deps';
import { DynamoConfigStore } from './dynamo-store';
import { configEnv } from './env';
import { purgeTenantConfig } from './records';

let deps: ConfigDeps | undefined;

export function config(): ConfigDeps {
  deps ??= {
    store: new DynamoConfigStore(),
    tenancy: tenancy(),
    cache: new ConfigCache(configEnv.cacheMs),
    writes: new KeyedSerializer(),
    now: Date.now,
  };
  return deps;
}

/** The tenant's configuration records, emptied by a tenant delete (registered in functions/tenant-data.ts). */
export function configData(of: ConfigDeps): TenantDataOwner {
  return {
    name: 'config-records',
    purge: async (tenant) => {
      await purgeTenantConfig(of, tenant.full);
    },
  };
}
