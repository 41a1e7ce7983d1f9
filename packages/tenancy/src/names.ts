/**
 * Schema names are `<base>_<org>_<tenant>` (document 2) and cannot change, so two tenants can map to the same
 * names: `a:b_c` and `a_b:c` both give `document_text_a_b_c`. A tenant whose names would equal another
 * tenant's, or a table's that exists, is refused at create. Every base schema the catalog holds counts,
 * auxiliary ones (knowledge graph, memories, wiki) too: either tenant could deploy any of them later.
 *
 * The suffix `<org>_<tenant>` is claimed by a conditional write (one claim row a suffix), so of two creates
 * racing for one suffix exactly one wins; the claim is released when the tenant is gone. Tenants created
 * before claims existed hold none, and bases that extend another (`x` and `x_y`) make names of different
 * suffixes meet: both are found by comparing the names of every registered tenant.
 */
import {
  ConflictError,
  parseTenantId,
  type TenantId,
  tenantSchemaName,
  tenantSchemaSuffix,
} from '@tessera/core';
import type { TenancyDeps } from './deps';
import type { TenantRecord } from './records';

/** The suffix a tenant's claim row is keyed by: `<org>_<tenant>`. */
export const claimSuffix = (tenant: TenantId) => tenantSchemaSuffix(tenant).slice(1);

/** Every schema name the tenant could ever deploy: each base of the catalog with the tenant's suffix. */
export function schemaNamesOf(deps: TenancyDeps, tenant: TenantId): string[] {
  return deps.catalog
    .baseNames()
    .map((base) => tenantSchemaName(base, tenant))
    .sort();
}

const idOf = (record: TenantRecord): TenantId => ({
  orgId: record.org_id,
  tenantName: record.tenant_name,
  full: record.tenant_full_id,
});

function conflict(tenant: TenantId, other: string, names: string[]): ConflictError {
  return new ConflictError(
    `Tenant '${tenant.full}' conflicts with tenant '${other}': both map to schema names ${names.join(', ')}`,
  );
}

/**
 * Claims the tenant's schema names for it, or refuses (409, holding nothing) when another tenant maps to
 * any of them or a table of one of them exists. Called with the tenant's `creating` record stored.
 */
export async function claimSchemaNames(deps: TenancyDeps, tenant: TenantId): Promise<void> {
  const names = schemaNamesOf(deps, tenant);
  const suffix = claimSuffix(tenant);
  let holder = await deps.store.claimSchemaSuffix(suffix, tenant.full);
  if (holder !== undefined) {
    const gone = await holderGone(deps, holder);
    // A claim whose tenant has no record any more was left by a delete that stopped before releasing it.
    if (gone) holder = await deps.store.claimSchemaSuffix(suffix, tenant.full, holder);
    if (holder !== undefined) throw conflict(tenant, holder, names);
  }
  try {
    await refuseSharedNames(deps, tenant, names);
  } catch (error) {
    await deps.store.releaseSchemaSuffix(suffix, tenant.full);
    throw error;
  }
}

/** Releases the tenant's claim on its schema names (it is gone). */
export function releaseSchemaNames(deps: TenancyDeps, tenant: TenantId): Promise<void> {
  return deps.store.releaseSchemaSuffix(claimSuffix(tenant), tenant.full);
}

async function holderGone(deps: TenancyDeps, holder: string): Promise<boolean> {
  let id: TenantId;
  try {
    id = parseTenantId(holder);
  } catch {
    return false;
  }
  return (await deps.store.getTenant(id.orgId, id.tenantName)) === undefined;
}

/** Refuses names another registered tenant maps to, and names of tables that exist. */
async function refuseSharedNames(deps: TenancyDeps, tenant: TenantId, names: string[]): Promise<void> {
  const wanted = new Set(names);
  const suffix = claimSuffix(tenant);
  for (const record of await deps.store.listAllTenants()) {
    if (record.tenant_full_id === tenant.full) continue;
    const other = idOf(record);
    // A create of the same suffix in flight loses at the claim this create holds; any other holder of the
    // same suffix was created before claims were kept.
    if (claimSuffix(other) === suffix && record.status === 'creating') continue;
    const shared = schemaNamesOf(deps, other).filter((name) => wanted.has(name));
    if (shared.length > 0) throw conflict(tenant, record.tenant_full_id, shared);
  }
  const existing = (await deps.backend.listSchemas()).filter((name) => wanted.has(name));
  if (existing.length === 0) return;
  const owner = (await deps.store.listAllRegistryRows()).find(
    (row) => wanted.has(row.schema_name) && row.tenant_full_id !== tenant.full,
  );
  if (owner) throw conflict(tenant, owner.tenant_full_id, existing);
  throw new ConflictError(
    `Tenant '${tenant.full}' conflicts with schema names ${existing.join(', ')}: the search backend holds ` +
      'them and no tenant registered them. Review them with POST /admin/reconcile-orphans?dry_run=true.',
  );
}
