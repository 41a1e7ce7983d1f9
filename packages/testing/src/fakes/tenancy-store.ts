/** An in-memory tenancy store with the conditional semantics of the DynamoDB adapter. */
import type { Organization, RegistryRow, TenancyStore, TenantRecord, TierRecord } from '@tessera/tenancy';

const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryTenancyStore implements TenancyStore {
  private readonly organizations = new Map<string, Organization>();
  private readonly tenants = new Map<string, TenantRecord>();
  private readonly tiers = new Map<string, TierRecord>();
  private readonly registry = new Map<string, RegistryRow>();
  private readonly suffixes = new Map<string, string>();

  private static tenantKey = (orgId: string, tenantName: string) => `${orgId}\u0000${tenantName}`;
  private static rowKey = (tenant: string, schema: string) => `${tenant}\u0000${schema}`;

  async getOrganization(orgId: string) {
    const org = this.organizations.get(orgId);
    return org && copy(org);
  }

  async putOrganizationIfAbsent(org: Organization) {
    if (this.organizations.has(org.org_id)) return false;
    this.organizations.set(org.org_id, copy(org));
    return true;
  }

  async listOrganizations() {
    return [...this.organizations.values()].map(copy);
  }

  async deleteOrganization(orgId: string) {
    this.organizations.delete(orgId);
  }

  async getTenant(orgId: string, tenantName: string) {
    const record = this.tenants.get(InMemoryTenancyStore.tenantKey(orgId, tenantName));
    return record && copy(record);
  }

  async putTenantIfAbsent(record: TenantRecord) {
    const key = InMemoryTenancyStore.tenantKey(record.org_id, record.tenant_name);
    if (this.tenants.has(key)) return false;
    this.tenants.set(key, copy(record));
    return true;
  }

  async replaceTenant(record: TenantRecord, expectedRevision: number) {
    const key = InMemoryTenancyStore.tenantKey(record.org_id, record.tenant_name);
    if (this.tenants.get(key)?.revision !== expectedRevision) return false;
    this.tenants.set(key, copy(record));
    return true;
  }

  async deleteTenant(orgId: string, tenantName: string, expectedRevision: number) {
    const key = InMemoryTenancyStore.tenantKey(orgId, tenantName);
    if (this.tenants.get(key)?.revision !== expectedRevision) return false;
    this.tenants.delete(key);
    return true;
  }

  async listTenants(orgId: string) {
    return [...this.tenants.values()].filter((record) => record.org_id === orgId).map(copy);
  }

  async listAllTenants() {
    return [...this.tenants.values()].map(copy);
  }

  async getTier(tenantFullId: string) {
    const tier = this.tiers.get(tenantFullId);
    return tier && copy(tier);
  }

  async putTier(tier: TierRecord) {
    this.tiers.set(tier.tenant_full_id, copy(tier));
  }

  async deleteTier(tenantFullId: string) {
    this.tiers.delete(tenantFullId);
  }

  async claimSchemaSuffix(suffix: string, tenantFullId: string, replacing?: string) {
    const holder = this.suffixes.get(suffix);
    if (holder !== undefined && holder !== tenantFullId && holder !== replacing) return holder;
    this.suffixes.set(suffix, tenantFullId);
    return undefined;
  }

  async releaseSchemaSuffix(suffix: string, tenantFullId: string) {
    if (this.suffixes.get(suffix) === tenantFullId) this.suffixes.delete(suffix);
  }

  async putRegistryRow(row: RegistryRow) {
    this.registry.set(InMemoryTenancyStore.rowKey(row.tenant_full_id, row.schema_name), copy(row));
  }

  async listRegistryRows(tenantFullId: string) {
    return [...this.registry.values()]
      .filter((row) => row.tenant_full_id === tenantFullId)
      .sort((a, b) => a.schema_name.localeCompare(b.schema_name))
      .map(copy);
  }

  async listAllRegistryRows() {
    return [...this.registry.values()].map(copy);
  }

  async deleteRegistryRow(tenantFullId: string, schemaName: string) {
    this.registry.delete(InMemoryTenancyStore.rowKey(tenantFullId, schemaName));
  }
}
