/** The production wiring of the tenancy domain, built once per process. */
import path from 'node:path';
import { platformEnv } from '@tessera/platform';
import { LanceSearchBackend, lanceConnection, SchemaCatalog, type SearchBackend } from '@tessera/search';
import type { TenancyDeps } from './deps';
import { DynamoTenancyStore } from './dynamo-store';
import { tenancyEnv } from './env';

let backend: SearchBackend | undefined;
let deps: TenancyDeps | undefined;

export function searchBackend(): SearchBackend {
  backend ??= new LanceSearchBackend(lanceConnection(platformEnv.searchUri));
  return backend;
}

export function tenancy(): TenancyDeps {
  deps ??= {
    store: new DynamoTenancyStore(),
    backend: searchBackend(),
    catalog: new SchemaCatalog(path.join(platformEnv.configDir, 'schemas')),
    now: Date.now,
    createLeaseMs: tenancyEnv.createLeaseMs,
    defaultBaseSchemas: tenancyEnv.defaultBaseSchemas,
  };
  return deps;
}
