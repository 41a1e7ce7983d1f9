/**
 * Configuration records: the system configuration and the per-tenant `llm`, `llm_teacher`, `routing`,
 * `telemetry` and `backend` records, each append-only. A write adds the next version (a conditional write, so
 * concurrent writers anywhere each get their own); a rollback adds a version holding an older one's value and
 * says which; history is never rewritten. Reads go through the process's cache (see cache.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Config } from '@tessera/api';
import { BadRequestError, ConflictError, NotFoundError, parseTenantId, SYSTEM_TENANT } from '@tessera/core';
import { requireTenant } from '@tessera/tenancy';
import { ConfigCache } from './cache';
import type { ConfigDeps } from './deps';
import type { ConfigVersion } from './store';

export type ConfigKind = Config.ConfigKind;
export type TenantConfigKind = Config.TenantConfigKind;

/** A record as read: its newest version (0 and the defaults while never written) and that version's value. */
export interface CurrentConfig<K extends ConfigKind = ConfigKind> {
  kind: K;
  /** Canonical tenant id; null for the system configuration. */
  tenantId: string | null;
  version: number;
  value: Config.ConfigValue<K>;
  createdAt: number | null;
  createdBy: string | null;
  rolledBackFrom?: number;
}

/** Times a write reads the head again after another writer took the version it meant to write. */
const WRITE_ATTEMPTS = 100;

const scopeOf = (tenantId: string | null) => tenantId ?? SYSTEM_TENANT;

/** The value of `kind` as read: stored values take any defaults added since; never written, the defaults. */
export function parseValue<K extends ConfigKind>(kind: K, stored: unknown): Config.ConfigValue<K> {
  if (stored === undefined) {
    if (kind === 'llm' || kind === 'llm_teacher') {
      return Config.LlmEndpointRecord.parse({ model: null }) as Config.ConfigValue<K>;
    }
    return Config.configSchemas[kind].parse({}) as Config.ConfigValue<K>;
  }
  return Config.configSchemas[kind].parse(stored) as Config.ConfigValue<K>;
}

function current<K extends ConfigKind>(kind: K, tenantId: string | null, head: ConfigVersion | undefined) {
  return {
    kind,
    tenantId,
    version: head?.version ?? 0,
    value: parseValue(kind, head?.value),
    createdAt: head?.created_at ?? null,
    createdBy: head?.created_by ?? null,
    ...(head?.rolled_back_from === undefined ? {} : { rolledBackFrom: head.rolled_back_from }),
  } satisfies CurrentConfig<K>;
}

/**
 * A record's newest version through the process cache, with no tenant guard: for the platform's own reads
 * (the LLM client, telemetry, provisioning). `tenantId` is canonical, or null for the system configuration.
 */
export async function readConfig<K extends ConfigKind>(
  deps: ConfigDeps,
  tenantId: string | null,
  kind: K,
): Promise<CurrentConfig<K>> {
  const scope = scopeOf(tenantId);
  const head = await deps.cache.read(ConfigCache.key(scope, kind), () => deps.store.latest(scope, kind));
  return current(kind, tenantId, head);
}

/** The system configuration's value (defaults while never written). */
export async function systemConfig(deps: ConfigDeps): Promise<Config.SystemConfig> {
  return (await readConfig(deps, null, 'system')).value;
}

/** A tenant's record of `kind` (its defaults at version 0 while never written). */
export function tenantConfig<K extends TenantConfigKind>(
  deps: ConfigDeps,
  tenantFullId: string,
  kind: K,
): Promise<CurrentConfig<K>> {
  return readConfig(deps, tenantFullId, kind);
}

/** The answer of the record routes. */
export function configAnswer(record: CurrentConfig): Config.ConfigRecord {
  return {
    kind: record.kind,
    tenant_id: record.tenantId,
    version: record.version,
    value: record.value,
    created_at: record.createdAt,
    ...(record.rolledBackFrom === undefined ? {} : { rolled_back_from: record.rolledBackFrom }),
  };
}

/** Refuses a system configuration the platform could not use. */
function checkSystem(value: Config.SystemConfig): void {
  if (value.semantic_router.enabled && !value.semantic_router.semantic_router_url) {
    throw new BadRequestError('semantic_router_url is required when the semantic router is enabled');
  }
}

/**
 * Appends `value` as the record's next version. Writers of this process take turns; a writer of another
 * process that took the version first makes this one read the head again and take the next.
 */
async function append<K extends ConfigKind>(
  deps: ConfigDeps,
  tenantId: string | null,
  kind: K,
  value: Record<string, unknown>,
  createdBy: string,
  rolledBackFrom?: number,
): Promise<CurrentConfig<K>> {
  const scope = scopeOf(tenantId);
  const key = ConfigCache.key(scope, kind);
  return deps.writes.run(key, async () => {
    for (let attempt = 1; ; attempt++) {
      const head = await deps.store.latest(scope, kind);
      const entry: ConfigVersion = {
        version: (head?.version ?? 0) + 1,
        value,
        created_at: deps.now(),
        created_by: createdBy,
        ...(rolledBackFrom === undefined ? {} : { rolled_back_from: rolledBackFrom }),
      };
      if (await deps.store.append(scope, kind, entry)) {
        deps.cache.remember(key, entry);
        return current(kind, tenantId, entry);
      }
      if (attempt >= WRITE_ATTEMPTS) {
        throw new ConflictError(`Configuration '${kind}' is being written by others; retry the request`);
      }
      await sleep(Math.random() * 5 * Math.min(attempt, 10));
    }
  });
}

async function rollback<K extends ConfigKind>(
  deps: ConfigDeps,
  tenantId: string | null,
  kind: K,
  version: number,
  createdBy: string,
): Promise<CurrentConfig<K>> {
  const target = await deps.store.get(scopeOf(tenantId), kind, version);
  if (!target) {
    throw new NotFoundError(
      tenantId === null
        ? `System configuration has no version ${version}`
        : `Configuration '${kind}' of tenant '${tenantId}' has no version ${version}`,
    );
  }
  const value = Config.configSchemas[kind].safeParse(target.value);
  if (!value.success) {
    throw new ConflictError(
      `Version ${version} of '${kind}' no longer fits the record's fields; write a new one`,
    );
  }
  return append(deps, tenantId, kind, value.data as Record<string, unknown>, createdBy, version);
}

async function history(deps: ConfigDeps, tenantId: string | null, kind: ConfigKind, limit: number) {
  const versions = await deps.store.history(scopeOf(tenantId), kind, limit);
  return {
    versions: versions.map((entry) => ({
      version: entry.version,
      value: parseValue(kind, entry.value),
      created_at: entry.created_at,
      created_by: entry.created_by,
      ...(entry.rolled_back_from === undefined ? {} : { rolled_back_from: entry.rolled_back_from }),
    })),
  };
}

// The routes of the system configuration.

export async function getSystemConfig(deps: ConfigDeps): Promise<Config.ConfigRecord> {
  return configAnswer(await readConfig(deps, null, 'system'));
}

export async function putSystemConfig(
  deps: ConfigDeps,
  value: Config.SystemConfig,
  createdBy: string,
): Promise<Config.ConfigRecord> {
  checkSystem(value);
  return configAnswer(await append(deps, null, 'system', value, createdBy));
}

export function systemConfigHistory(deps: ConfigDeps, limit: number): Promise<Config.ConfigHistory> {
  return history(deps, null, 'system', limit);
}

export async function rollbackSystemConfig(
  deps: ConfigDeps,
  version: number,
  createdBy: string,
): Promise<Config.ConfigRecord> {
  return configAnswer(await rollback(deps, null, 'system', version, createdBy));
}

// The routes of a tenant's records: the tenant guard first (400 malformed, 404 unregistered, 409 deleted).

export async function getTenantConfig(
  deps: ConfigDeps,
  rawTenantId: string,
  kind: TenantConfigKind,
): Promise<Config.ConfigRecord> {
  // The guard and the (usually cached) read go out together; the record is answered once the guard passed.
  const id = parseTenantId(rawTenantId);
  const [, record] = await Promise.all([
    requireTenant(deps.tenancy, id.full),
    readConfig(deps, id.full, kind),
  ]);
  return configAnswer(record);
}

/** Writes a tenant's record; `value` is validated by the route against `kind`'s schema. */
export async function putTenantConfig(
  deps: ConfigDeps,
  rawTenantId: string,
  kind: TenantConfigKind,
  value: Record<string, unknown>,
  createdBy: string,
): Promise<Config.ConfigRecord> {
  const { tenant } = await requireTenant(deps.tenancy, rawTenantId);
  return configAnswer(await append(deps, tenant.full, kind, value, createdBy));
}

export async function tenantConfigHistory(
  deps: ConfigDeps,
  rawTenantId: string,
  kind: TenantConfigKind,
  limit: number,
): Promise<Config.ConfigHistory> {
  const { tenant } = await requireTenant(deps.tenancy, rawTenantId);
  return history(deps, tenant.full, kind, limit);
}

export async function rollbackTenantConfig(
  deps: ConfigDeps,
  rawTenantId: string,
  kind: TenantConfigKind,
  version: number,
  createdBy: string,
): Promise<Config.ConfigRecord> {
  const { tenant } = await requireTenant(deps.tenancy, rawTenantId);
  return configAnswer(await rollback(deps, tenant.full, kind, version, createdBy));
}

/** Removes every record of a deleted tenant; answers how many versions were removed. */
export async function purgeTenantConfig(deps: ConfigDeps, tenantFullId: string): Promise<number> {
  const removed = await deps.store.purgeTenant(tenantFullId);
  deps.cache.forgetTenant(tenantFullId);
  return removed;
}
