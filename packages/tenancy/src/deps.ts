/** What the tenancy domain needs from the outside, built once per process. */
import type { SchemaCatalog, SearchBackend } from '@tessera/search';
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
  /** Called after a tenant is marked deleted, before its data goes (e.g. to cancel its running tasks). */
  onTenantDeleting?: (tenantFullId: string) => Promise<void>;
}
