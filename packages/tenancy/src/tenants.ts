/** Tenant lifecycle: create, read, delete (with crash-safe rollback), the tenant guard and tiers. */
import { randomUUID } from 'node:crypto';
import type { Tenants } from '@tessera/api';
import {
  BadGatewayError,
  BadRequestError,
  ConflictError,
  failpoint,
  log,
  NotFoundError,
  parseTenantId,
  ServiceUnavailableError,
  SYSTEM_TENANT,
  type TenantId,
  tenantSchemaName,
  validateOrgId,
} from '@tessera/core';
import type { TenancyDeps } from './deps';
import { claimSchemaNames, releaseSchemaNames } from './names';
import { type PublicTenant, publicTenant, type TenantRecord } from './records';
import {
  deploySchema,
  ensureAuxiliarySchema,
  forgetDeployedSchemas,
  planTenantDrop,
  requireTemplates,
} from './schemas';

export type CreateTenantInput = Tenants.CreateTenantRequest;

/** Resolves `org_id` + bare `tenant_id`, or a full / bare `tenant_id`, to a canonical id. */
export function resolveTenantId(input: { tenant_id: string; org_id?: string }): TenantId {
  if (input.org_id === undefined) return parseTenantId(input.tenant_id);
  const orgId = validateOrgId(input.org_id);
  // A bare name given with its organization: empty is the name missing, not a malformed `org:` id.
  if (input.tenant_id === '') throw new BadRequestError('tenant_name cannot be empty');
  if (input.tenant_id.includes(':')) {
    const parsed = parseTenantId(input.tenant_id);
    if (parsed.orgId !== orgId) {
      throw new BadRequestError(
        `tenant_id '${input.tenant_id}' belongs to organization '${parsed.orgId}', not to org_id '${orgId}'`,
      );
    }
    return parsed;
  }
  return parseTenantId(`${orgId}:${input.tenant_id}`);
}

export function refuseReserved(orgId: string, tenantName?: string): void {
  if (orgId === SYSTEM_TENANT || tenantName === SYSTEM_TENANT) {
    throw new BadRequestError(`'${SYSTEM_TENANT}' is reserved for the system and cannot be created`);
  }
}

const leaseLive = (deps: TenancyDeps, record: TenantRecord) =>
  record.status === 'creating' && (record.lease_expires_at ?? 0) > deps.now();

/**
 * Removes everything of a tenant: the data every registered owner holds (ingestion jobs, uploads, task
 * events, …), its schemas, registry rows, tier, record and schema-name claim. The record is marked deleted
 * first, so a failure or crash part-way leaves a tenant that refuses traffic and that the next DELETE or POST
 * finishes; every step can run again.
 */
async function removeTenant(deps: TenancyDeps, tenant: TenantId, record: TenantRecord): Promise<string[]> {
  const owners = deps.owners;
  if (!owners) {
    throw new Error(
      `Tenant ${tenant.full} cannot be removed by deps that name no tenant-data owners: take them from tenantAdmin() of functions/tenant-data.ts`,
    );
  }
  const plan = await planTenantDrop(deps, tenant);
  let current = record;
  if (record.status !== 'marked_deleted') {
    const marked: TenantRecord = {
      ...record,
      status: 'marked_deleted',
      lease_expires_at: undefined,
      revision: record.revision + 1,
    };
    if (!(await deps.store.replaceTenant(marked, record.revision))) {
      throw new ConflictError(`Tenant ${tenant.full} changed while it was being deleted; retry the request`);
    }
    current = marked;
  }
  failpoint('tenant.delete.after_mark');
  forgetDeployedSchemas(deps, tenant.full);
  try {
    await owners.purge(tenant);
    failpoint('tenant.delete.after_purge');
    for (const name of plan.schemas) await deps.backend.dropSchema(name);
    for (const row of plan.rows) await deps.store.deleteRegistryRow(row.tenant_full_id, row.schema_name);
    await deps.store.deleteTier(tenant.full);
  } catch (error) {
    const reason = (error as Error).message;
    log.warn('tenant delete incomplete', { tenant: tenant.full, error });
    await deps.store
      .replaceTenant({ ...current, delete_error: reason, revision: current.revision + 1 }, current.revision)
      .catch(() => false);
    throw new ServiceUnavailableError(
      'tenant_delete_incomplete',
      `Tenant ${tenant.full} is marked deleted but its removal did not finish (${reason}); ` +
        'it refuses all traffic until a repeated DELETE finishes the removal.',
      { tenant_id: tenant.full },
    );
  }
  failpoint('tenant.delete.before_record');
  const latest = await deps.store.getTenant(tenant.orgId, tenant.tenantName);
  if (latest && !(await deps.store.deleteTenant(tenant.orgId, tenant.tenantName, latest.revision))) {
    throw new ConflictError(`Tenant ${tenant.full} changed while it was being deleted; retry the request`);
  }
  // After the record: a claim left by a crash here is taken over by the next create that meets it.
  await releaseSchemaNames(deps, tenant);
  if (record.created_org && (await deps.store.listTenants(tenant.orgId)).length === 0) {
    await deps.store.deleteOrganization(tenant.orgId);
  }
  return plan.schemas;
}

export async function createTenant(deps: TenancyDeps, input: CreateTenantInput): Promise<PublicTenant> {
  const tenant = resolveTenantId(input);
  refuseReserved(tenant.orgId, tenant.tenantName);
  const bases = [...new Set(input.base_schemas ?? deps.defaultBaseSchemas)];
  requireTemplates(deps, bases);

  const existing = await deps.store.getTenant(tenant.orgId, tenant.tenantName);
  if (existing) {
    if (existing.status === 'active' || leaseLive(deps, existing)) {
      throw new ConflictError(`Tenant ${tenant.full} already exists`);
    }
    // A create that died part-way, or a delete that did not finish: complete the removal first.
    await removeTenant(deps, tenant, existing);
  }

  const now = deps.now();
  let record: TenantRecord = {
    tenant_full_id: tenant.full,
    org_id: tenant.orgId,
    tenant_name: tenant.tenantName,
    created_at: now,
    created_by: input.created_by,
    status: 'creating',
    schemas_deployed: [],
    revision: 1,
    lease_expires_at: now + deps.createLeaseMs,
    created_org: false,
    incarnation: randomUUID(),
  };
  if (!(await deps.store.putTenantIfAbsent(record)))
    throw new ConflictError(`Tenant ${tenant.full} already exists`);
  try {
    await claimSchemaNames(deps, tenant);
  } catch (error) {
    await deps.store.deleteTenant(tenant.orgId, tenant.tenantName, record.revision);
    throw error;
  }

  const createdOrg = await deps.store.putOrganizationIfAbsent({
    org_id: tenant.orgId,
    org_name: tenant.orgId.charAt(0).toUpperCase() + tenant.orgId.slice(1),
    created_at: now,
    created_by: input.created_by,
    status: 'active',
    config: {},
  });
  if (createdOrg) record = await replaceOrConflict(deps, tenant, { ...record, created_org: true });

  const failed: string[] = [];
  for (const base of bases) {
    try {
      await deploySchema(deps, tenant, base, 'primary');
    } catch (error) {
      log.warn('schema deploy failed', { tenant: tenant.full, base, error });
      failed.push(tenantSchemaName(base, tenant));
    }
  }
  failpoint('tenant.create.after_deploy');
  if (failed.length > 0) {
    let cleanup = '';
    try {
      await removeTenant(deps, tenant, record);
    } catch (error) {
      cleanup = `; cleanup did not finish and the tenant is marked deleted (${(error as Error).message})`;
    }
    throw new BadGatewayError(
      `Tenant ${tenant.full} not created: schema deploy failed for [${failed.map((n) => `'${n}'`).join(', ')}]${cleanup}`,
    );
  }

  const active = await replaceOrConflict(deps, tenant, {
    ...record,
    status: 'active',
    schemas_deployed: bases,
    lease_expires_at: undefined,
    created_org: undefined,
  });
  return publicTenant(active);
}

async function replaceOrConflict(
  deps: TenancyDeps,
  tenant: TenantId,
  next: TenantRecord,
): Promise<TenantRecord> {
  const updated = { ...next, revision: next.revision + 1 };
  if (!(await deps.store.replaceTenant(updated, next.revision))) {
    throw new ConflictError(`Tenant ${tenant.full} was changed by another request during its create`);
  }
  return updated;
}

/** The record of a tenant that exists for readers (not one still being created). */
async function visibleRecord(deps: TenancyDeps, tenant: TenantId): Promise<TenantRecord | undefined> {
  const record = await deps.store.getTenant(tenant.orgId, tenant.tenantName);
  return record && record.status !== 'creating' ? record : undefined;
}

export async function getTenant(deps: TenancyDeps, rawId: string): Promise<PublicTenant> {
  const tenant = parseTenantId(rawId);
  const record = await visibleRecord(deps, tenant);
  if (!record) throw new NotFoundError(`Tenant ${tenant.full} not found`);
  return publicTenant(record);
}

export async function deleteTenant(deps: TenancyDeps, rawId: string): Promise<Tenants.TenantDeleted> {
  const tenant = parseTenantId(rawId);
  const record = await deps.store.getTenant(tenant.orgId, tenant.tenantName);
  if (!record || leaseLive(deps, record)) throw new NotFoundError(`Tenant ${tenant.full} not found`);
  const deleted = await removeTenant(deps, tenant, record);
  return {
    status: 'deleted',
    tenant_full_id: tenant.full,
    schemas_deleted: deleted.length,
    deleted_schemas: deleted,
  };
}

export interface GuardedTenant {
  tenant: TenantId;
  record: TenantRecord;
}

/**
 * The tenant guard of every tenant-scoped route: 400 for a malformed id, 404 for an unregistered tenant,
 * 409 for a tenant marked deleted (its data is partly gone; nothing may read or write it).
 */
export async function requireTenant(deps: TenancyDeps, rawId: string): Promise<GuardedTenant> {
  const tenant = parseTenantId(rawId);
  const record = await visibleRecord(deps, tenant);
  if (!record) throw new NotFoundError(`Tenant '${tenant.full}' not registered.`);
  if (record.status === 'marked_deleted') {
    throw new ConflictError(
      `Tenant '${tenant.full}' is marked deleted and refuses all requests; repeat DELETE /admin/tenants/${tenant.full} to finish removing it.`,
    );
  }
  return { tenant, record };
}

/**
 * A tenant as domain functions take it: guarded once per request or job and passed down, or a raw id,
 * which the function then guards itself.
 */
export type TenantRef = string | GuardedTenant;

/** The guarded tenant of a reference: as given, or through the guard. */
export function guardTenant(deps: TenancyDeps, ref: TenantRef): Promise<GuardedTenant> {
  return typeof ref === 'string' ? requireTenant(deps, ref) : Promise.resolve(ref);
}

/** Deploys an auxiliary schema for a registered tenant on its first write; answers the tenant schema name. */
export async function ensureTenantSchema(deps: TenancyDeps, ref: TenantRef, base: string): Promise<string> {
  const { tenant, record } = await guardTenant(deps, ref);
  requireTemplates(deps, [base]);
  return ensureAuxiliarySchema(deps, tenant, record, base);
}

export async function setTier(deps: TenancyDeps, rawId: string, tier: string): Promise<Tenants.TenantTier> {
  const { tenant } = await requireTenant(deps, rawId);
  const record = { tenant_full_id: tenant.full, tier, updated_at: deps.now() };
  await deps.store.putTier(record);
  return { tenant_id: tenant.full, tier, updated_at: record.updated_at };
}

export async function getTier(deps: TenancyDeps, rawId: string): Promise<Tenants.TenantTier> {
  const { tenant } = await requireTenant(deps, rawId);
  const record = await deps.store.getTier(tenant.full);
  return { tenant_id: tenant.full, tier: record?.tier ?? null, updated_at: record?.updated_at ?? null };
}

/** Rolls back creates whose process died (their lease expired); run at start and on a schedule. */
export async function recoverInterruptedCreates(deps: TenancyDeps): Promise<string[]> {
  const recovered: string[] = [];
  for (const record of await deps.store.listAllTenants()) {
    if (record.status !== 'creating' || leaseLive(deps, record)) continue;
    const tenant = parseTenantId(record.tenant_full_id);
    try {
      await removeTenant(deps, tenant, record);
      recovered.push(record.tenant_full_id);
    } catch (error) {
      log.warn('could not roll back an interrupted tenant create', { tenant: record.tenant_full_id, error });
    }
  }
  return recovered;
}

/** Removal used by the organization delete; finishes marked deletes and refuses creates in flight. */
export async function deleteTenantRecord(deps: TenancyDeps, record: TenantRecord): Promise<string[]> {
  const tenant = parseTenantId(record.tenant_full_id);
  if (leaseLive(deps, record)) {
    throw new ConflictError(
      `Tenant ${record.tenant_full_id} is being created; retry the delete when it finishes`,
    );
  }
  return removeTenant(deps, tenant, record);
}
