/** The tenancy store port. */
import type { Organization, RegistryRow, TenantRecord, TierRecord } from './records';

export interface TenancyStore {
  getOrganization(orgId: string): Promise<Organization | undefined>;
  /** False when the organization already exists. */
  putOrganizationIfAbsent(org: Organization): Promise<boolean>;
  listOrganizations(): Promise<Organization[]>;
  deleteOrganization(orgId: string): Promise<void>;

  getTenant(orgId: string, tenantName: string): Promise<TenantRecord | undefined>;
  /** False when a record for the tenant already exists. */
  putTenantIfAbsent(record: TenantRecord): Promise<boolean>;
  /** Replaces the record if its stored revision is `expectedRevision`; false otherwise. */
  replaceTenant(record: TenantRecord, expectedRevision: number): Promise<boolean>;
  /** Deletes the record if its stored revision is `expectedRevision`; false otherwise. */
  deleteTenant(orgId: string, tenantName: string, expectedRevision: number): Promise<boolean>;
  listTenants(orgId: string): Promise<TenantRecord[]>;
  listAllTenants(): Promise<TenantRecord[]>;

  getTier(tenantFullId: string): Promise<TierRecord | undefined>;
  putTier(tier: TierRecord): Promise<void>;
  deleteTier(tenantFullId: string): Promise<void>;

  /**
   * Claims a schema suffix (`<org>_<tenant>`) for a tenant: kept when the tenant holds it already, taken
   * over from `replacing` when that tenant holds it. Answers the tenant holding it when another does.
   */
  claimSchemaSuffix(suffix: string, tenantFullId: string, replacing?: string): Promise<string | undefined>;
  /** Releases a schema suffix the tenant holds; a suffix another tenant holds is left alone. */
  releaseSchemaSuffix(suffix: string, tenantFullId: string): Promise<void>;

  putRegistryRow(row: RegistryRow): Promise<void>;
  listRegistryRows(tenantFullId: string): Promise<RegistryRow[]>;
  listAllRegistryRows(): Promise<RegistryRow[]>;
  deleteRegistryRow(tenantFullId: string, schemaName: string): Promise<void>;
}
