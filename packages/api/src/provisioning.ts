/**
 * `POST /admin/tenants/{tenant_full_id}/provision` (document 2, "Provisioning"; clarifications): starts the
 * 12-step provisioning workflow of a tenant and answers where its events go.
 */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';

export const ProvisionRequest = z
  .strictObject({
    profiles: z
      .array(z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'profile names are 1 to 100 letters, digits, _ or -'))
      .min(1)
      .max(100)
      .optional()
      .meta({
        description: "Profiles whose schemas are deployed and verified; default the tenant's deployed ones.",
      }),
    tier: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/, 'tier must be 1 to 32 lower-case letters, digits, hyphens or underscores')
      .optional(),
    cpu_quota: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: "The tenant's concurrent ingestion slots." }),
    memory_quota: z.number().int().min(1).max(1_048_576).optional().meta({ description: 'MiB, recorded.' }),
    storage_quota: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: "Bytes across the tenant's uploads; an upload past it answers 413." }),
  })
  .meta({ id: 'ProvisionRequest' });
export type ProvisionRequest = z.output<typeof ProvisionRequest>;

export const ProvisionStarted = z
  .object({
    execution_id: z.string().meta({ description: 'The same for every start of the same provisioning.' }),
    workflow_id: z.string().meta({ description: 'The task whose events report each step.' }),
    events_url: z.string(),
    status: z.enum(['running', 'succeeded', 'failed']),
  })
  .meta({ id: 'ProvisionStarted' });
export type ProvisionStarted = z.infer<typeof ProvisionStarted>;

export const provisionTenant = route({
  id: 'provisionTenant',
  group: 'provisioning',
  method: 'POST',
  route: '/admin/tenants/{tenant_full_id}/provision',
  summary: "Start the tenant's 12-step provisioning workflow",
  description:
    'Each step reports a StatusEvent (`phase` = its name) on the workflow task; the last event is a CompleteEvent with every step’s outcome, or an ErrorEvent naming the failed step. A repeated start of the same provisioning (tenant and body) answers the same execution; one that failed, or stopped half-way, is resumed from its first unfinished step.',
  path: z.object({ tenant_full_id: z.string() }),
  body: ProvisionRequest,
  responses: { 202: { description: 'The execution, started or already known.', schema: ProvisionStarted } },
  errors: {
    ...tenantGuard,
    404: plain(
      "The tenant is not registered (`Tenant '<id>' not registered.`), or a listed profile is not the tenant's: `Profile 'X' not found for tenant '<id>'`.",
    ),
    503: outage,
  },
});
