/** Tenant schemas: deploy with registry rows, lazy auxiliary deploys, drop planning, orphans and drift. */
import {
  BadRequestError,
  ConflictError,
  HttpError,
  type TenantId,
  tenantSchemaName,
  tenantSchemaSuffix,
} from '@tessera/core';
import { definitionHash } from '@tessera/search';
import type { TenancyDeps } from './deps';
import { incarnationOf, type RegistryRow, type TenantRecord } from './records';

export function requireTemplates(deps: TenancyDeps, bases: string[]): void {
  const unknown = bases.filter((base) => !deps.catalog.has(base));
  if (unknown.length > 0) {
    throw new BadRequestError(
      `Unknown base schema${unknown.length > 1 ? 's' : ''} ${unknown.map((b) => `'${b}'`).join(', ')}: ` +
        `no template ${unknown.map((b) => `${b}_schema.json`).join(', ')} in the schema directory`,
    );
  }
}

/**
 * Registers, then deploys, one tenant schema. The registry row comes first so a table is never visible
 * without one (an orphan sweep running concurrently must not take a table that is being created).
 */
export async function deploySchema(
  deps: TenancyDeps,
  tenant: TenantId,
  base: string,
  kind: RegistryRow['kind'],
): Promise<string> {
  const template = deps.catalog.get(base);
  if (!template) throw new BadRequestError(`Unknown base schema '${base}'`);
  const schemaName = tenantSchemaName(base, tenant);
  await deps.store.putRegistryRow({
    tenant_full_id: tenant.full,
    schema_name: schemaName,
    base_schema: base,
    definition_hash: definitionHash(template),
    kind,
    registered_at: deps.now(),
    migration_refusal: null,
  });
  await deps.backend.deploySchema(schemaName, template);
  return schemaName;
}

/** The base schema a deployed name starts with, if any: `<base>_<rest>`. */
export function knownBase(deps: TenancyDeps, schemaName: string): string | undefined {
  return deps.catalog
    .baseNames()
    .find((base) => schemaName.startsWith(`${base}_`) && schemaName.length > base.length + 1);
}

interface DropPlan {
  schemas: string[];
  rows: RegistryRow[];
}

/**
 * What a tenant delete drops: its registered schemas plus deployed, unregistered schemas carrying its suffix
 * that can only be its own. Refuses (409, changing nothing) when any deployed schema cannot be attributed.
 */
export async function planTenantDrop(deps: TenancyDeps, tenant: TenantId): Promise<DropPlan> {
  const [rows, allRows, deployed] = await Promise.all([
    deps.store.listRegistryRows(tenant.full),
    deps.store.listAllRegistryRows(),
    deps.backend.listSchemas(),
  ]);
  const registered = new Set(allRows.map((row) => row.schema_name));
  const unregistered = deployed.filter((name) => !registered.has(name));

  const unrecovered = unregistered.filter((name) => !knownBase(deps, name));
  if (unrecovered.length > 0) {
    throw new ConflictError(
      `Schema '${unrecovered[0]}' has no registry record and no known base schema; no tenant is deleted while it ` +
        'is unresolved. Review it with POST /admin/reconcile-orphans?dry_run=true.',
    );
  }

  const suffix = tenantSchemaSuffix(tenant);
  const own = unregistered.filter((name) => name.endsWith(suffix));
  if (own.length > 0) {
    const peers = (await deps.store.listAllTenants()).filter(
      (record) =>
        record.tenant_full_id !== tenant.full &&
        tenantSchemaSuffix({
          orgId: record.org_id,
          tenantName: record.tenant_name,
          full: record.tenant_full_id,
        }) === suffix,
    );
    for (const name of own) {
      const base = name.slice(0, -suffix.length);
      if (!deps.catalog.has(base) || peers.length > 0) {
        const why =
          peers.length > 0
            ? `tenant ${peers[0]!.tenant_full_id} shares its suffix`
            : `'${base}' is no base schema`;
        throw new ConflictError(
          `Schema '${name}' has no registry record and cannot be attributed to tenant ${tenant.full} (${why}); ` +
            'it was not dropped. Review it with POST /admin/reconcile-orphans?dry_run=true.',
        );
      }
    }
  }
  const schemas = [...new Set([...rows.map((row) => row.schema_name), ...own])].sort();
  return { schemas, rows };
}

/**
 * Auxiliary schemas this process deployed or found deployed, per tenancy wiring: keyed by the tenant's
 * incarnation (its id and `incarnationOf`, which a tenant deleted and created again does not share) and the
 * base, so that a tenant's every later write skips the registry read. Removing a tenant forgets its entries.
 */
const deployed = new WeakMap<TenancyDeps, Map<string, Promise<string>>>();

const deployedKey = (record: TenantRecord, base: string) =>
  `${record.tenant_full_id}\u0000${incarnationOf(record)}\u0000${base}`;

function deployedOf(deps: TenancyDeps): Map<string, Promise<string>> {
  let known = deployed.get(deps);
  if (!known) {
    known = new Map();
    deployed.set(deps, known);
  }
  return known;
}

/** Forgets what this process knew deployed of a tenant (it is being removed), or of one of its bases. */
export function forgetDeployedSchemas(deps: TenancyDeps, tenantFullId: string, base?: string): void {
  const known = deployedOf(deps);
  for (const key of known.keys()) {
    if (key.startsWith(`${tenantFullId}\u0000`) && (base === undefined || key.endsWith(`\u0000${base}`))) {
      known.delete(key);
    }
  }
}

/**
 * Deploys an auxiliary schema (knowledge graph, memories, wiki) on a tenant's first write to it. A schema
 * the record lists, or this process saw deployed, is answered without reading anything.
 */
export function ensureAuxiliarySchema(
  deps: TenancyDeps,
  tenant: TenantId,
  record: TenantRecord,
  base: string,
): Promise<string> {
  const schemaName = tenantSchemaName(base, tenant);
  if (record.schemas_deployed.includes(base)) return Promise.resolve(schemaName);
  const known = deployedOf(deps);
  const key = deployedKey(record, base);
  let ensured = known.get(key);
  if (!ensured) {
    ensured = deployAuxiliary(deps, tenant, record, base, schemaName);
    known.set(key, ensured);
    ensured.catch(() => known.delete(key));
  }
  return ensured;
}

async function deployAuxiliary(
  deps: TenancyDeps,
  tenant: TenantId,
  record: TenantRecord,
  base: string,
  schemaName: string,
): Promise<string> {
  const rows = await deps.store.listRegistryRows(tenant.full);
  if (rows.some((row) => row.schema_name === schemaName)) return schemaName;
  await deploySchema(deps, tenant, base, 'auxiliary');
  await recordDeployedBases(deps, tenant, record, (bases) =>
    bases.includes(base) ? bases : [...bases, base],
  );
  return schemaName;
}

/**
 * Changes the tenant record's `schemas_deployed`; a concurrent change of the record only means another writer
 * already did it or will retry, so a few attempts suffice.
 */
async function recordDeployedBases(
  deps: TenancyDeps,
  tenant: TenantId,
  record: TenantRecord,
  change: (bases: string[]) => string[],
): Promise<void> {
  let current: TenantRecord | undefined = record;
  for (let attempt = 0; attempt < 5 && current; attempt++) {
    const bases = change(current.schemas_deployed);
    if (
      bases.length === current.schemas_deployed.length &&
      bases.every((b, i) => b === current!.schemas_deployed[i])
    )
      return;
    const next = { ...current, schemas_deployed: bases, revision: current.revision + 1 };
    if (await deps.store.replaceTenant(next, current.revision)) return;
    current = await deps.store.getTenant(tenant.orgId, tenant.tenantName);
  }
}

/** Whether a tenant schema is deployed: it has a registry row and a table. */
async function isDeployed(deps: TenancyDeps, tenant: TenantId, schemaName: string) {
  const [rows, live] = await Promise.all([
    deps.store.listRegistryRows(tenant.full),
    deps.backend.listSchemas(),
  ]);
  const row = rows.find((candidate) => candidate.schema_name === schemaName);
  return { row, rows, table: live.includes(schemaName), live };
}

/**
 * Deploys a base schema for a tenant on request (a profile's deploy): registers it and creates its table, or,
 * when both exist already, does nothing unless `force`, which registers it again and brings the table to the
 * shipped definition. Throws when the backend refuses; the template must exist.
 */
export async function deployTenantSchema(
  deps: TenancyDeps,
  tenant: TenantId,
  record: TenantRecord,
  base: string,
  options: { force?: boolean } = {},
): Promise<{ schemaName: string; status: 'success' | 'already_deployed' }> {
  const template = deps.catalog.get(base);
  if (!template) throw new BadRequestError(`Schema template '${base}_schema.json' not found`);
  const schemaName = tenantSchemaName(base, tenant);
  const { row, table } = await isDeployed(deps, tenant, schemaName);
  if (row && table && !options.force) return { schemaName, status: 'already_deployed' };
  try {
    await deploySchema(deps, tenant, base, row?.kind ?? 'primary');
  } catch (error) {
    // The row written ahead of the table goes again, so a registry row still means a deployed schema.
    if (!row) await deps.store.deleteRegistryRow(tenant.full, schemaName).catch(() => undefined);
    throw error;
  }
  if (table && options.force) {
    const migrated = await deps.backend.migrateSchema(schemaName, template);
    if (migrated.status === 'refused') throw new Error(migrated.reason);
  }
  await recordDeployedBases(deps, tenant, record, (bases) =>
    bases.includes(base) ? bases : [...bases, base],
  );
  return { schemaName, status: 'success' };
}

/**
 * Drops one base schema of a tenant (a profile delete with `delete_schema`): its table, registry row and place
 * in the tenant record. Refuses (409) a schema a platform feature deployed for itself, and (500, dropping
 * nothing) while the tenant has deployed tables the registry cannot reconstruct. Answers false when there was
 * no such schema.
 */
export async function dropTenantSchema(
  deps: TenancyDeps,
  tenant: TenantId,
  record: TenantRecord,
  base: string,
): Promise<{ schemaName: string; dropped: boolean }> {
  const schemaName = tenantSchemaName(base, tenant);
  const { row, rows, table, live } = await isDeployed(deps, tenant, schemaName);
  if (!row && !table) return { schemaName, dropped: false };
  if (row?.kind === 'auxiliary') {
    throw new ConflictError(
      `Schema '${base}' is used by the platform for tenant ${tenant.full} (deployed on its first write); it is not dropped with a profile`,
    );
  }
  const registered = new Set(rows.map((r) => r.schema_name));
  const suffix = tenantSchemaSuffix(tenant);
  const unrecoverable = live.filter(
    (name) => name.endsWith(suffix) && name !== schemaName && !registered.has(name),
  );
  if (unrecoverable.length > 0) {
    throw new HttpError(
      500,
      `Schema '${schemaName}' was not dropped: dropping it would also drop deployed schemas the registry cannot reconstruct (${unrecoverable.join(', ')}); register or remove them first, then retry`,
    );
  }
  forgetDeployedSchemas(deps, tenant.full, base);
  await deps.backend.dropSchema(schemaName);
  if (row) await deps.store.deleteRegistryRow(tenant.full, schemaName);
  await recordDeployedBases(deps, tenant, record, (bases) => bases.filter((b) => b !== base));
  return { schemaName, dropped: true };
}
