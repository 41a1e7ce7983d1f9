/** Stored records of organizations, tenants, tiers and the schema registry. */
import { Organizations, Tenants } from '@tessera/api';
import { z } from 'zod';

/** An organization as stored: the API's without the tenant count, which is counted when answered. */
export const Organization = Organizations.Organization.omit({ tenant_count: true });
export type Organization = z.infer<typeof Organization>;

/**
 * `creating` records are invisible to readers until activated; a create that dies leaves one whose lease
 * expires, and the next caller rolls it back. `marked_deleted` records refuse all traffic until a delete finishes.
 */
export const TenantStatus = Tenants.TenantStatus;
export type TenantStatus = Tenants.TenantStatus;

export const TenantRecord = z.object({
  tenant_full_id: z.string(),
  org_id: z.string(),
  tenant_name: z.string(),
  created_at: z.number().int(),
  created_by: z.string(),
  status: TenantStatus,
  schemas_deployed: z.array(z.string()),
  /** Optimistic-concurrency counter: every change is conditional on it. */
  revision: z.number().int(),
  /** While `creating`: epoch ms after which another caller may roll the create back. */
  lease_expires_at: z.number().int().optional(),
  /** While `creating`: the create also made the organization, so a rollback removes it if it is empty. */
  created_org: z.boolean().optional(),
  /** While `marked_deleted`: why the last delete attempt stopped. */
  delete_error: z.string().optional(),
  /**
   * A random id of this creation of the tenant: a tenant deleted and created again under its id is another
   * (records made before it existed go by `created_at`; see `incarnationOf`).
   */
  incarnation: z.string().optional(),
});
export type TenantRecord = z.infer<typeof TenantRecord>;

/** Which creation of its tenant a record is: what data kept for a tenant (a job, say) is bound to. */
export const incarnationOf = (record: TenantRecord): string =>
  record.incarnation ?? String(record.created_at);

export const TierRecord = z.object({
  tenant_full_id: z.string(),
  tier: z.string(),
  updated_at: z.number().int(),
});
export type TierRecord = z.infer<typeof TierRecord>;

export const RegistryRow = z.object({
  tenant_full_id: z.string(),
  /** Tenant schema name `<base>_<org>_<tenant>`. */
  schema_name: z.string(),
  base_schema: z.string(),
  definition_hash: z.string(),
  kind: z.enum(['primary', 'auxiliary']),
  registered_at: z.number().int(),
  /** Why the search backend refused the last migration to the shipped definition; null while none refused. */
  migration_refusal: z.string().nullable(),
});
export type RegistryRow = z.infer<typeof RegistryRow>;

/** The tenant as the API shows it. */
export function publicTenant(record: TenantRecord): Tenants.Tenant {
  return {
    tenant_full_id: record.tenant_full_id,
    org_id: record.org_id,
    tenant_name: record.tenant_name,
    created_at: record.created_at,
    created_by: record.created_by,
    status: record.status,
    schemas_deployed: record.schemas_deployed,
    ...(record.delete_error ? { delete_error: record.delete_error } : {}),
  };
}
export type PublicTenant = Tenants.Tenant;
