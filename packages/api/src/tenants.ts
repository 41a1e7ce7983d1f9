/** Admin routes of tenants and their router tier. */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, TenantDeleteIncomplete, tenantGuard } from './errors';
import { Actor } from './ids';

/**
 * `creating` tenants are invisible to readers until activated; `marked_deleted` ones refuse all traffic
 * until a delete finishes.
 */
export const TenantStatus = z.enum(['creating', 'active', 'marked_deleted']);
export type TenantStatus = z.infer<typeof TenantStatus>;

export const Tenant = z
  .object({
    tenant_full_id: z.string().meta({ description: 'The canonical `org:tenant` id.' }),
    org_id: z.string(),
    tenant_name: z.string(),
    created_at: z.number().int().meta({ description: 'Epoch milliseconds.' }),
    created_by: z.string(),
    status: TenantStatus,
    schemas_deployed: z.array(z.string()).meta({ description: 'Base schemas deployed for the tenant.' }),
    delete_error: z
      .string()
      .optional()
      .meta({ description: 'Why the last delete stopped, while marked deleted.' }),
  })
  .meta({ id: 'Tenant' });
export type Tenant = z.infer<typeof Tenant>;

export const CreateTenantRequest = z.strictObject({
  tenant_id: z.string().meta({ description: 'A full `org:tenant` id, or a bare tenant name with `org_id`.' }),
  org_id: z.string().optional(),
  created_by: Actor.default('api'),
  base_schemas: z.array(z.string().min(1).max(100)).min(1).max(20).optional(),
});
export type CreateTenantRequest = z.output<typeof CreateTenantRequest>;

export const TenantDeleted = z.object({
  status: z.literal('deleted'),
  tenant_full_id: z.string(),
  schemas_deleted: z.number().int(),
  deleted_schemas: z.array(z.string()),
});
export type TenantDeleted = z.infer<typeof TenantDeleted>;

export const SetTierRequest = z.strictObject({
  tier: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'tier must be 1 to 32 lower-case letters, digits, hyphens or underscores'),
});
export type SetTierRequest = z.output<typeof SetTierRequest>;

export const TenantTier = z.object({
  tenant_id: z.string(),
  tier: z.string().nullable().meta({ description: 'null while no tier was set.' }),
  updated_at: z.number().int().nullable(),
});
export type TenantTier = z.infer<typeof TenantTier>;

const tenantPath = z.object({ tenant_full_id: z.string() });
const invalidTenantId = plain('A malformed tenant id (`Invalid tenant_id format: …`, `Invalid org_id …`).');
const unknownTenant = plain('`Tenant <id> not found`.');
const deleteOutage = {
  description:
    'The delete stopped part-way (the tenant stays marked deleted), or a backing service did not answer.',
  schema: z.union([TenantDeleteIncomplete, outage.schema]),
};

export const createTenant = route({
  id: 'createTenant',
  group: 'tenants',
  method: 'POST',
  route: '/admin/tenants',
  summary: 'Create a tenant and deploy its primary schemas',
  description: "Creates the tenant's organization too when it does not exist.",
  body: CreateTenantRequest,
  responses: { 201: { description: 'The tenant, active, its schemas deployed.', schema: Tenant } },
  errors: {
    400: plain(
      'A malformed id, a reserved name, an `org_id` the `tenant_id` does not belong to, or an unknown base schema.',
    ),
    409: plain(
      "`Tenant <id> already exists`; `Tenant '<id>' conflicts with tenant '<other>': both map to schema names " +
        '<names>` (schema names are `<base>_<org>_<tenant>`, so `a:b_c` and `a_b:c` share them), or a table of ' +
        'one of its schema names exists; or it changed during the create.',
    ),
    502: plain('`Tenant <id> not created: schema deploy failed for [<names>]`; nothing is left behind.'),
    503: deleteOutage,
  },
});

export const getTenant = route({
  id: 'getTenant',
  group: 'tenants',
  method: 'GET',
  route: '/admin/tenants/{tenant_full_id}',
  summary: 'One tenant',
  path: tenantPath,
  responses: { 200: { description: 'The tenant record.', schema: Tenant } },
  errors: { 400: invalidTenantId, 404: unknownTenant, 503: outage },
});

export const deleteTenant = route({
  id: 'deleteTenant',
  group: 'tenants',
  method: 'DELETE',
  route: '/admin/tenants/{tenant_full_id}',
  summary: 'Delete a tenant and drop its schemas',
  path: tenantPath,
  responses: { 200: { description: 'What was deleted.', schema: TenantDeleted } },
  errors: {
    400: invalidTenantId,
    404: unknownTenant,
    409: plain('A search-backend table cannot be attributed to the tenant, or the tenant changed meanwhile.'),
    503: deleteOutage,
  },
});

export const setTenantTier = route({
  id: 'setTenantTier',
  group: 'tenants',
  method: 'PUT',
  route: '/admin/tenants/{tenant_full_id}/tier',
  summary: "Set the tenant's router tier",
  path: tenantPath,
  body: SetTierRequest,
  responses: { 200: { description: 'The tier as stored.', schema: TenantTier } },
  errors: { ...tenantGuard, 503: outage },
});

export const getTenantTier = route({
  id: 'getTenantTier',
  group: 'tenants',
  method: 'GET',
  route: '/admin/tenants/{tenant_full_id}/tier',
  summary: "The tenant's router tier",
  path: tenantPath,
  responses: { 200: { description: 'The tier, null when none was set.', schema: TenantTier } },
  errors: { ...tenantGuard, 503: outage },
});
