/** Operator views of the search backend: orphan reconciliation and schema drift. */
import type { Schemas } from '@tessera/api';
import { ConflictError, parseTenantId } from '@tessera/core';
import { definitionHash } from '@tessera/search';
import type { TenancyDeps } from './deps';
import { knownBase } from './schemas';

export type OrphanReport = Schemas.OrphanReport;

/** `acme_prod` → `acme:prod`, preferring a split whose organization exists, then `x_x` → `x:x`. */
function impliedTenant(rest: string, orgIds: Set<string>): string | undefined {
  const splits: [string, string][] = [];
  for (let i = rest.indexOf('_'); i !== -1; i = rest.indexOf('_', i + 1)) {
    const org = rest.slice(0, i);
    const name = rest.slice(i + 1);
    try {
      parseTenantId(`${org}:${name}`);
      splits.push([org, name]);
    } catch {
      // not a valid split
    }
  }
  const pick =
    splits.find(([org]) => orgIds.has(org)) ?? splits.find(([org, name]) => org === name) ?? splits[0];
  return pick ? `${pick[0]}:${pick[1]}` : undefined;
}

export async function reconcileOrphans(
  deps: TenancyDeps,
  options: { dryRun: boolean; includeTenantOrphans: boolean },
): Promise<OrphanReport> {
  const [rows, deployed, tenants, orgs] = await Promise.all([
    deps.store.listAllRegistryRows(),
    deps.backend.listSchemas(),
    deps.store.listAllTenants(),
    deps.store.listOrganizations(),
  ]);
  const registered = new Set(rows.map((row) => row.schema_name));
  const deployedSet = new Set(deployed);
  const tenantIds = new Set(tenants.map((t) => t.tenant_full_id));
  const orgIds = new Set(orgs.map((o) => o.org_id));

  const orphanSchemas = deployed.filter((name) => !registered.has(name)).sort();
  const orphanTenants = new Set<string>();
  const unrecovered: string[] = [];
  for (const name of orphanSchemas) {
    const base = knownBase(deps, name);
    const tenant = base ? impliedTenant(name.slice(base.length + 1), orgIds) : undefined;
    if (tenant) orphanTenants.add(tenant);
    else unrecovered.push(name);
  }
  const tenantOrphans = rows
    .filter((row) => deployedSet.has(row.schema_name) && !tenantIds.has(row.tenant_full_id))
    .map((row) => ({ schema_name: row.schema_name, tenant_id: row.tenant_full_id }));

  const report: OrphanReport = {
    dry_run: options.dryRun,
    deleted: [],
    orphan_schemas: orphanSchemas,
    orphan_tenants: [...orphanTenants].sort(),
    unrecovered_schemas: unrecovered,
    tenant_orphan_schemas: tenantOrphans,
  };
  if (options.dryRun) return report;
  if (unrecovered.length > 0) {
    throw new ConflictError(
      `Reconcile refused: ${unrecovered.map((n) => `'${n}'`).join(', ')} ha${unrecovered.length > 1 ? 've' : 's'} ` +
        'no registry record and no known base schema; review and remove them by hand first.',
    );
  }
  const recoverable = orphanSchemas.filter((name) => !unrecovered.includes(name));
  for (const name of recoverable) {
    await deps.backend.dropSchema(name);
    report.deleted.push(name);
  }
  if (options.includeTenantOrphans) {
    for (const orphan of tenantOrphans) {
      await deps.backend.dropSchema(orphan.schema_name);
      await deps.store.deleteRegistryRow(orphan.tenant_id, orphan.schema_name);
      report.deleted.push(orphan.schema_name);
    }
  }
  return report;
}

export type DriftEntry = Schemas.DriftEntry;

/** Tenant schemas whose registered definition differs from the shipped template. */
export async function schemaDrift(deps: TenancyDeps): Promise<Schemas.SchemaDrift> {
  const drifted: DriftEntry[] = [];
  for (const row of await deps.store.listAllRegistryRows()) {
    const template = deps.catalog.get(row.base_schema);
    const shipped = template ? definitionHash(template) : null;
    if (shipped === row.definition_hash) continue;
    drifted.push({
      tenant_id: row.tenant_full_id,
      schema_name: row.schema_name,
      base_schema: row.base_schema,
      registered_hash: row.definition_hash,
      shipped_hash: shipped,
      refusal: row.migration_refusal,
    });
  }
  return { drifted: drifted.sort((a, b) => a.schema_name.localeCompare(b.schema_name)) };
}

export interface MigrationSummary {
  migrated: string[];
  refused: { schema_name: string; refusal: string }[];
}

/**
 * The start-up migration: every tenant schema whose registered definition differs from the shipped one is
 * brought to it when the change only adds fields; otherwise the refusal is recorded on its registry row and
 * the schema keeps its live definition and documents.
 */
export async function migrateDriftedSchemas(deps: TenancyDeps): Promise<MigrationSummary> {
  const summary: MigrationSummary = { migrated: [], refused: [] };
  for (const row of await deps.store.listAllRegistryRows()) {
    const template = deps.catalog.get(row.base_schema);
    if (!template) continue;
    const shipped = definitionHash(template);
    if (shipped === row.definition_hash) continue;
    const result = await deps.backend.migrateSchema(row.schema_name, template);
    if (result.status === 'migrated') {
      await deps.store.putRegistryRow({ ...row, definition_hash: shipped, migration_refusal: null });
      summary.migrated.push(row.schema_name);
    } else {
      if (row.migration_refusal !== result.reason) {
        await deps.store.putRegistryRow({ ...row, migration_refusal: result.reason });
      }
      summary.refused.push({ schema_name: row.schema_name, refusal: result.reason });
    }
  }
  return summary;
}
