export type { TenancyDeps } from './deps';
export { DynamoTenancyStore } from './dynamo-store';
export type { DriftEntry, MigrationSummary, OrphanReport } from './maintenance';
export { migrateDriftedSchemas, reconcileOrphans, schemaDrift } from './maintenance';
export {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  listOrganizationTenants,
} from './organizations';
export { TenantDataOwners } from './owners';
export type { PublicTenant } from './records';
export { incarnationOf, Organization, publicTenant, RegistryRow, TenantRecord, TierRecord } from './records';
export { deployTenantSchema, dropTenantSchema } from './schemas';
export type { TenancyStore } from './store';
export type { GuardedTenant, TenantRef } from './tenants';
export {
  createTenant,
  deleteTenant,
  ensureTenantSchema,
  getTenant,
  getTier,
  guardTenant,
  recoverInterruptedCreates,
  requireTenant,
  resolveTenantId,
  setTier,
} from './tenants';
export { searchBackend, tenancy } from './wiring';
