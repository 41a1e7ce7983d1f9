/** Tenant schemas: deploy with registry rows, lazy auxiliary deploys, drop planning, orphans and drift. */
import {
  BadRequestError,
  ConflictError,
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

/** Forgets what this process knew deployed of a tenant (it is being removed). */
export function forgetDeployedSchemas(deps: TenancyDeps, tenantFullId: string): void {
  const known = deployedOf(deps);
  for (const key of known.keys()) if (key.startsWith(`${tenantFullId}\u0000`)) known.delete(key);
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
  // Record it on the tenant too; a concurrent change only means another writer already did or will retry.
  let current: TenantRecord | undefined = record;
  for (let attempt = 0; attempt < 5 && current && !current.schemas_deployed.includes(base); attempt++) {
    const next = {
      ...current,
      schemas_deployed: [...current.schemas_deployed, base],
      revision: current.revision + 1,
    };
    if (await deps.store.replaceTenant(next, current.revision)) break;
    current = await deps.store.getTenant(tenant.orgId, tenant.tenantName);
  }
  return schemaName;
}
