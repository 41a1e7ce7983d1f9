/** Admin routes over tenant schemas in the search backend: orphan reconciliation and drift. */
import { httpRoute, queryBoolean } from '@tessera/http';
import { schemaDrift as drift, reconcileOrphans as reconcile, tenancy } from '@tessera/tenancy';
import { z } from 'zod';

const deps = tenancy();

export const reconcileOrphans = httpRoute(
  { query: z.object({ dry_run: queryBoolean(true), include_tenant_orphans: queryBoolean(false) }) },
  ({ query }) =>
    reconcile(deps, { dryRun: query.dry_run, includeTenantOrphans: query.include_tenant_orphans }),
);

export const schemaDrift = httpRoute({}, () => drift(deps));
