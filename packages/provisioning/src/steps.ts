/**
 * What each provisioning step does, on AWS (clarifications, "Provisioning"): the Kubernetes steps map to a
 * namespace record and prefix, a quota record that ingestion enforces, a storage reservation and probes of
 * the prefix. Every step is idempotent, so a step run again (a retry, a resume after a crash) finishes it.
 */
import type { Provisioning } from '@tessera/api';
import { tenantSchemaName } from '@tessera/core';
import { tenantProfiles } from '@tessera/profiles';
import type { Profile } from '@tessera/search';
import {
  deployTenantSchema,
  ensureTenantSchema,
  type GuardedTenant,
  requireTenant,
  setTier,
} from '@tessera/tenancy';
import type { ProvisionStep } from './definition';
import type { ProvisioningDeps } from './deps';

/** A step's definite failure, reported in one line and not retried. */
export class StepFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepFailed';
  }
}

export type Outcome = Record<string, unknown>;

export interface StepContext {
  deps: ProvisioningDeps;
  tenantId: string;
  input: Provisioning.ProvisionRequest;
}

const WORKFLOW_TENANT = /^[a-z0-9](?:[a-z0-9_]{0,50}[a-z0-9])?$/;

/** The workflow's tenant id (`org_tenant`); a step fails when the canonical id does not make one. */
export function workflowTenantId(tenantId: string): string {
  const id = tenantId.replace(':', '_');
  if (!WORKFLOW_TENANT.test(id)) throw new StepFailedError(`Invalid tenant id for provisioning: ${tenantId}`);
  return id;
}

/** The tenant's namespace: its prefix in the uploads bucket. */
export const namespacePrefix = (tenantId: string) => `tenants/${tenantId}/`;

/** Where the tenant's uploads are, counted against its storage quota. */
const uploadPrefixes = (tenantId: string) => [
  `jobs/${tenantId}/`,
  `incoming/${tenantId}/`,
  namespacePrefix(tenantId),
];

/** The listed profiles through the tenant's merged catalog, or the tenant's deployed ones; all or none. */
export async function provisionedProfiles(
  deps: ProvisioningDeps,
  guarded: GuardedTenant,
  names: string[] | undefined,
): Promise<Profile[]> {
  const view = await tenantProfiles(deps.profiles, guarded.tenant.full, { fresh: true });
  if (!names)
    return view.list().filter((profile) => guarded.record.schemas_deployed.includes(profile.schema_name));
  const missing = names.filter((name) => !view.get(name));
  if (missing.length > 0) {
    throw new StepFailedError(
      `Profile${missing.length > 1 ? 's' : ''} ${missing.map((name) => `'${name}'`).join(', ')} not found for tenant '${guarded.tenant.full}'; no schema was deployed`,
    );
  }
  return names.map((name) => view.get(name)!);
}

/** Deploys the profiles' schemas under the tenant's names (after all of them resolved). */
export async function deploySchemas(deps: ProvisioningDeps, tenantId: string, names: string[] | undefined) {
  const guarded = await requireTenant(deps.tenancy, tenantId);
  const profiles = await provisionedProfiles(deps, guarded, names);
  const bases = [...new Set(profiles.map((profile) => profile.schema_name))];
  const missing = bases.filter((base) => !deps.tenancy.catalog.has(base));
  if (missing.length > 0) {
    throw new StepFailedError(
      `Schema template '${missing[0]}_schema.json' not found; no schema was deployed`,
    );
  }
  const schemas: string[] = [];
  for (const base of bases) {
    let record = guarded.record;
    const { schemaName } = await deployTenantSchema(deps.tenancy, guarded.tenant, record, base);
    record = { ...record, schemas_deployed: [...new Set([...record.schemas_deployed, base])] };
    schemas.push(schemaName);
  }
  return { profiles: profiles.map((profile) => profile.profile_name), schemas };
}

/** Each profile's tenant schema has a registry row, a table, and answers a query. */
export async function verifySchemas(deps: ProvisioningDeps, tenantId: string, names: string[] | undefined) {
  const guarded = await requireTenant(deps.tenancy, tenantId);
  const profiles = await provisionedProfiles(deps, guarded, names);
  const [rows, live] = await Promise.all([
    deps.tenancy.store.listRegistryRows(guarded.tenant.full),
    deps.tenancy.backend.listSchemas(),
  ]);
  const verified: { profile: string; schema: string; documents: number }[] = [];
  for (const profile of profiles) {
    const schema = tenantSchemaName(profile.schema_name, guarded.tenant);
    if (!rows.some((row) => row.schema_name === schema)) {
      throw new StepFailedError(
        `Schema '${schema}' of profile '${profile.profile_name}' has no registry row`,
      );
    }
    if (!live.includes(schema)) {
      throw new StepFailedError(`Schema '${schema}' of profile '${profile.profile_name}' is not deployed`);
    }
    const documents = await deps.index.count(schema).catch((error: Error) => {
      throw new StepFailedError(`Schema '${schema}' did not answer a query: ${error.message}`);
    });
    verified.push({ profile: profile.profile_name, schema, documents });
  }
  return { verified };
}

export async function initializeMemory(deps: ProvisioningDeps, tenantId: string) {
  const schema = await ensureTenantSchema(deps.tenancy, tenantId, 'agent_memories');
  return { schema };
}

export async function createTelemetryProject(deps: ProvisioningDeps, tenantId: string) {
  try {
    return await deps.telemetry.probe(tenantId);
  } catch (error) {
    throw new StepFailedError((error as Error).message);
  }
}

export async function storeTier(deps: ProvisioningDeps, tenantId: string, tier: string | undefined) {
  if (!tier) {
    const current = await deps.tenancy.store.getTier(tenantId);
    return { tier: current?.tier ?? null, changed: false };
  }
  const stored = await setTier(deps.tenancy, tenantId, tier);
  return { tier: stored.tier, changed: true };
}

type StepRun = (context: StepContext) => Promise<Outcome>;

/** The twelve steps of the workflow, by name. */
export const STEPS: Record<ProvisionStep, StepRun> = {
  validate_tenant_id: async ({ tenantId }) => ({ workflow_tenant_id: workflowTenantId(tenantId) }),
  create_namespace: async ({ deps, tenantId }) => {
    const prefix = namespacePrefix(tenantId);
    const existing = await deps.store.getResource(tenantId, 'namespace');
    const created_at = (existing?.created_at as number | undefined) ?? deps.now();
    await deps.store.putResource(tenantId, 'namespace', {
      prefix,
      bucket: deps.namespace.bucket,
      created_at,
    });
    return { bucket: deps.namespace.bucket, prefix };
  },
  deploy_schemas: ({ deps, tenantId, input }) => deploySchemas(deps, tenantId, input.profiles),
  create_telemetry_project: ({ deps, tenantId }) => createTelemetryProject(deps, tenantId),
  resource_quotas: async ({ deps, tenantId, input }) => {
    const existing = await deps.store.getResource(tenantId, 'quota');
    // Uploads made before the quota count against it.
    const used =
      typeof existing?.used_bytes === 'number'
        ? existing.used_bytes
        : await deps.namespace.usedBytes(uploadPrefixes(tenantId));
    const quota = {
      cpu_quota: input.cpu_quota ?? null,
      memory_quota: input.memory_quota ?? null,
      storage_quota: input.storage_quota ?? null,
      used_bytes: used,
      updated_at: deps.now(),
    };
    await deps.store.putResource(tenantId, 'quota', quota);
    return quota;
  },
  storage_claim: async ({ deps, tenantId, input }) => {
    const claim = {
      prefix: namespacePrefix(tenantId),
      bytes: input.storage_quota ?? null,
      claimed_at: deps.now(),
    };
    await deps.store.putResource(tenantId, 'storage_claim', claim);
    return claim;
  },
  initialize_memory: ({ deps, tenantId }) => initializeMemory(deps, tenantId),
  set_tier: ({ deps, tenantId, input }) => storeTier(deps, tenantId, input.tier),
  verify_namespace: async ({ deps, tenantId }) => {
    if (!(await deps.store.getResource(tenantId, 'namespace'))) {
      throw new StepFailedError(`Namespace of tenant ${tenantId} was not created`);
    }
    await deps.namespace.probe(namespacePrefix(tenantId));
    return { probe: 'written, read and deleted' };
  },
  verify_storage: async ({ deps, tenantId }) => {
    const claim = await deps.store.getResource(tenantId, 'storage_claim');
    if (!claim) throw new StepFailedError(`Storage claim of tenant ${tenantId} was not recorded`);
    await deps.namespace.probe(`${namespacePrefix(tenantId)}storage/`);
    return { claim_bytes: claim.bytes ?? null, probe: 'written, read and deleted' };
  },
  verify_tenant: ({ deps, tenantId, input }) => verifySchemas(deps, tenantId, input.profiles),
  notify: async ({ deps, tenantId }) => {
    const message = `Tenant ${tenantId} provisioned`;
    const chats = deps.chats ? await deps.chats.count(tenantId) : 0;
    if (chats === 0 || !deps.chats) return { message, channel: 'task events' };
    await deps.chats.queue(tenantId, message);
    return { message, channel: 'messaging', chats };
  },
};
