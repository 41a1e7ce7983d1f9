/** The production wiring of the configuration records, built once per process. */
import { KeyedSerializer, type TenantDataOwner } from '@tessera/core';
import { tenancy } from '@tessera/tenancy';
import { ConfigCache } from './cache';
import type { ConfigDeps } from './deps';
import { DynamoConfigStore } from './dynamo-store';
import { configEnv } from './env';
import { purgeTenantConfig } from './records';
import { traceWithRecords } from './telemetry';

let deps: ConfigDeps | undefined;

/** The records of the process; building them points the process's telemetry at tenants' records too. */
export function config(): ConfigDeps {
  if (!deps) {
    deps = {
      store: new DynamoConfigStore(),
      tenancy: tenancy(),
      cache: new ConfigCache(configEnv.cacheMs),
      writes: new KeyedSerializer(),
      now: Date.now,
    };
    traceWithRecords(deps);
  }
  return deps;
}

/**
 * The process's telemetry following tenants' records: for handler modules that serve tenants without
 * otherwise reading a record (their spans would otherwise follow the environment alone).
 */
export function tracing() {
  return traceWithRecords(config());
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
