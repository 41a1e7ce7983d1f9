/** Admin routes over tenant schemas in the search backend: orphan reconciliation and drift. */
import { Schemas } from '@tessera/api';
import { tracing } from '@tessera/config';
import { httpRoute } from '@tessera/http';
import { schemaDrift as drift, reconcileOrphans as reconcile, tenancy } from '@tessera/tenancy';

const deps = tenancy();
// Spans of this module follow tenants' telemetry records.
tracing();

export const reconcileOrphans = httpRoute(Schemas.reconcileOrphans, ({ query }) =>
  reconcile(deps, { dryRun: query.dry_run, includeTenantOrphans: query.include_tenant_orphans }),
);

export const schemaDrift = httpRoute(Schemas.schemaDrift, () => drift(deps));
