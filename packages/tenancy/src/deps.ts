/** What the tenancy domain needs from the outside, built once per process. */
import type { SchemaCatalog, SearchBackend } from '@tessera/search';
import type { TenantDataOwners } from './owners';
import type { TenancyStore } from './store';

export interface TenancyDeps {
  store: TenancyStore;
  backend: SearchBackend;
  catalog: SchemaCatalog;
  now: () => number;
  /** How long a tenant create may hold its `creating` record before others may roll it back. */
  createLeaseMs: number;
  /** Base schemas a tenant gets when the create names none. */
  defaultBaseSchemas: string[];
  /**
   * The stores holding tenant data, which a tenant removal purges after marking the tenant deleted (see
   * owners.ts). A removal refuses to run without them: deps that can remove tenants must say what to purge.
   */
  owners?: TenantDataOwners;
}
