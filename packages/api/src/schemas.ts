/** Admin routes over tenant schemas in the search backend: orphan reconciliation and drift. */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain } from './errors';
import { queryBoolean } from './params';

export const OrphanReport = z
  .object({
    dry_run: z.boolean(),
    deleted: z.array(z.string()),
    orphan_schemas: z.array(z.string()).meta({ description: 'Deployed schemas with no registry record.' }),
    orphan_tenants: z.array(z.string()).meta({
      description: "Tenant ids implied by the orphan schemas' names once their base prefix is stripped.",
    }),
    unrecovered_schemas: z
      .array(z.string())
      .meta({ description: 'Orphans whose base prefix is unknown: they need review and block deletes.' }),
    tenant_orphan_schemas: z
      .array(z.object({ schema_name: z.string(), tenant_id: z.string() }))
      .meta({ description: 'Registered, deployed schemas whose tenant has no record any more.' }),
  })
  .meta({ id: 'OrphanReport' });
export type OrphanReport = z.infer<typeof OrphanReport>;

export const DriftEntry = z.object({
  tenant_id: z.string(),
  schema_name: z.string(),
  base_schema: z.string(),
  registered_hash: z.string(),
  shipped_hash: z.string().nullable(),
  refusal: z
    .string()
    .nullable()
    .meta({ description: 'Why the last migration was refused; null if none was.' }),
});
export type DriftEntry = z.infer<typeof DriftEntry>;

export const SchemaDrift = z.object({ drifted: z.array(DriftEntry) });
export type SchemaDrift = z.infer<typeof SchemaDrift>;

export const ReconcileQuery = z.object({
  dry_run: queryBoolean(true),
  include_tenant_orphans: queryBoolean(false),
});

export const reconcileOrphans = route({
  id: 'reconcileOrphans',
  group: 'schemas',
  method: 'POST',
  route: '/admin/reconcile-orphans',
  summary: 'Report, and unless a dry run drop, schemas no registry record owns',
  query: ReconcileQuery,
  responses: { 200: { description: 'The orphans found and what was deleted.', schema: OrphanReport } },
  errors: {
    409: plain('Reconcile refused: orphans with no known base schema need review first.'),
    503: outage,
  },
});

export const schemaDrift = route({
  id: 'schemaDrift',
  group: 'schemas',
  method: 'GET',
  route: '/admin/schemas/drift',
  summary: 'Tenant schemas whose registered definition differs from the shipped template',
  responses: { 200: { description: 'The drifted schemas, by name.', schema: SchemaDrift } },
  errors: { 503: outage },
});
