/**
 * Backend profiles of tenants (document 2, "Profiles"): create with every business rule checked at once,
 * templates from the shipped catalog, list, get, update of the mutable fields (each a new version; concurrent
 * writers anywhere each get their own), delete with or without the schema, and deploy of the schema.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Profiles, Search } from '@tessera/api';
import {
  BadRequestError,
  BusinessRuleError,
  ConflictError,
  HttpError,
  log,
  NotFoundError,
  parseTenantId,
  type TenantId,
  tenantSchemaName,
} from '@tessera/core';
import { strategyClassNames } from '@tessera/search';
import { deployTenantSchema, dropTenantSchema, requireTenant } from '@tessera/tenancy';
import type { ProfilesDeps } from './deps';
import type { StoredProfile } from './store';
import { createErrors, fieldsOf, strategyErrors } from './validation';
import { tenantProfiles } from './views';

/** Times an update reads the profile again after another writer took the version it meant to write. */
const WRITE_ATTEMPTS = 100;

const notFound = (name: string, tenant: TenantId) =>
  new NotFoundError(`Profile '${name}' not found for tenant '${tenant.full}'`);

/** The tenant's deployed schema names (those with a registry row). */
async function deployedSchemas(deps: ProfilesDeps, tenant: TenantId): Promise<Set<string>> {
  return new Set((await deps.tenancy.store.listRegistryRows(tenant.full)).map((row) => row.schema_name));
}

function deployment(tenant: TenantId, schemaName: string, deployed: Set<string>) {
  const name = tenantSchemaName(schemaName, tenant);
  return deployed.has(name)
    ? { schema_deployed: true, tenant_schema_name: name }
    : { schema_deployed: false, tenant_schema_name: null };
}

export async function createProfile(
  deps: ProfilesDeps,
  input: Profiles.CreateProfileRequest,
): Promise<Profiles.ProfileCreated> {
  const guarded = await requireTenant(deps.tenancy, input.tenant_id);
  const { tenant } = guarded;
  const errors = createErrors(input, deps.shipped, deps.tenancy.catalog);
  const duplicate = `Profile '${input.profile_name}' already exists for tenant '${tenant.full}'`;
  if (!errors.some((error) => error.startsWith('Invalid profile_name'))) {
    if (await deps.store.latest(tenant.full, input.profile_name)) errors.unshift(duplicate);
  }
  if (errors.length > 0) throw new BusinessRuleError('Profile validation failed', errors);

  const now = deps.now();
  const stored: StoredProfile = {
    ...fieldsOf(input),
    tenant_id: tenant.full,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  if (!(await deps.store.append(stored)))
    throw new BusinessRuleError('Profile validation failed', [duplicate]);
  deps.views.forget(tenant.full);

  let schemaDeployError: string | null = null;
  if (input.deploy_schema) {
    try {
      await deployTenantSchema(deps.tenancy, tenant, guarded.record, stored.schema_name);
    } catch (error) {
      log.warn('profile schema deploy failed', { tenant: tenant.full, profile: stored.profile_name, error });
      schemaDeployError = `Schema '${tenantSchemaName(stored.schema_name, tenant)}' could not be deployed: ${(error as Error).message}`;
    }
  }
  return {
    profile_name: stored.profile_name,
    tenant_id: tenant.full,
    ...deployment(tenant, stored.schema_name, await deployedSchemas(deps, tenant)),
    schema_deploy_error: schemaDeployError,
    created_at: now,
    version: 1,
  };
}

/** The shipped profiles as templates (less those the tenant replaced with its own), and the choice lists. */
export async function profileTemplates(
  deps: ProfilesDeps,
  rawTenantId: string,
): Promise<Profiles.ProfileTemplates> {
  const { tenant } = await requireTenant(deps.tenancy, rawTenantId);
  let own: StoredProfile[];
  try {
    own = await deps.store.list(tenant.full);
  } catch (error) {
    log.warn('profile templates failed', { tenant: tenant.full, error });
    throw new HttpError(500, {
      error: 'profile_templates_failed',
      message: `The profile store could not be read for tenant '${tenant.full}'; retry.`,
    });
  }
  const taken = new Set(own.map((profile) => profile.profile_name));
  return {
    tenant_id: tenant.full,
    templates: deps.shipped
      .list()
      .filter((profile) => !taken.has(profile.profile_name))
      .map((profile) => ({
        profile_name: profile.profile_name,
        config: deps.shipped.file(profile.profile_name)!,
      })),
    profile_types: Search.ProfileType.options,
    embedding_types: Search.EmbeddingType.options,
    model_loaders: Profiles.ModelLoader.options,
    process_types: Profiles.ProcessType.options,
    strategy_classes: strategyClassNames(),
  };
}

export async function listProfiles(deps: ProfilesDeps, rawTenantId: string): Promise<Profiles.ProfileList> {
  const { tenant } = await requireTenant(deps.tenancy, rawTenantId);
  const [stored, deployed] = await Promise.all([deps.store.list(tenant.full), deployedSchemas(deps, tenant)]);
  const now = deps.now();
  const profiles = stored.map((profile) => ({
    profile_name: profile.profile_name,
    type: profile.type,
    schema_name: profile.schema_name,
    embedding_model: profile.embedding_model,
    description: profile.description,
    schema_deployed: deployment(tenant, profile.schema_name, deployed).schema_deployed,
    created_at: now,
  }));
  return { profiles, total_count: profiles.length, tenant_id: tenant.full };
}

/** A stored profile as the get route answers it. */
function detail(profile: StoredProfile, tenant: TenantId, deployed: Set<string>): Profiles.ProfileDetail {
  const { tenant_id: _tenant, ...fields } = profile;
  return { ...fields, tenant_id: tenant.full, ...deployment(tenant, profile.schema_name, deployed) };
}

export async function getProfile(
  deps: ProfilesDeps,
  name: string,
  rawTenantId: string,
): Promise<Profiles.ProfileDetail> {
  // The guard and the reads go out together; what was read is answered only once the guard passed.
  const id = parseTenantId(rawTenantId);
  const [{ tenant }, profile, deployed] = await Promise.all([
    requireTenant(deps.tenancy, id.full),
    deps.store.latest(id.full, name),
    deployedSchemas(deps, id),
  ]);
  if (!profile) throw notFound(name, tenant);
  return detail(profile, tenant, deployed);
}

/** Every stored version of a profile, newest first (not a route: for tests and operators). */
export function profileVersions(deps: ProfilesDeps, tenantFullId: string, name: string) {
  return deps.store.versions(tenantFullId, name);
}

export async function updateProfile(
  deps: ProfilesDeps,
  name: string,
  input: Profiles.UpdateProfileRequest,
): Promise<Profiles.ProfileUpdated> {
  const { tenant } = await requireTenant(deps.tenancy, input.tenant_id);
  const changes = Object.fromEntries(
    Profiles.MUTABLE_PROFILE_FIELDS.filter((field) => input[field] !== undefined).map((field) => [
      field,
      input[field],
    ]),
  ) as Partial<Pick<StoredProfile, (typeof Profiles.MUTABLE_PROFILE_FIELDS)[number]>>;
  const updated = Object.keys(changes);
  if (updated.length === 0) throw new BadRequestError('No fields to update provided');
  if (changes.strategies) {
    const errors = strategyErrors(changes.strategies);
    if (errors.length > 0) throw new BusinessRuleError('Invalid update fields', errors);
  }
  const version = await deps.writes.run(`${tenant.full}\u0000${name}`, async () => {
    for (let attempt = 1; ; attempt++) {
      const current = await deps.store.latest(tenant.full, name);
      if (!current) throw notFound(name, tenant);
      const next: StoredProfile = {
        ...current,
        ...changes,
        version: current.version + 1,
        updated_at: deps.now(),
      };
      if (await deps.store.append(next)) return next.version;
      if (attempt >= WRITE_ATTEMPTS) {
        throw new ConflictError(`Profile '${name}' is being updated by others; retry the request`);
      }
      await sleep(Math.random() * 5 * Math.min(attempt, 10));
    }
  });
  deps.views.forget(tenant.full);
  return { profile_name: name, tenant_id: tenant.full, updated_fields: updated, version };
}

export async function deleteProfile(
  deps: ProfilesDeps,
  name: string,
  rawTenantId: string,
  deleteSchema: boolean,
): Promise<Profiles.ProfileDeleted> {
  const guarded = await requireTenant(deps.tenancy, rawTenantId);
  const { tenant } = guarded;
  const profile = await deps.store.latest(tenant.full, name);
  if (!profile) throw notFound(name, tenant);
  let schemaDeleted = false;
  if (deleteSchema) {
    // Every other profile the tenant can use that reads the schema: its own, and the shipped ones it kept.
    const view = await tenantProfiles(deps, tenant.full, { fresh: true });
    const users = view
      .list()
      .filter((other) => other.profile_name !== name && other.schema_name === profile.schema_name)
      .map((other) => other.profile_name);
    if (users.length > 0) {
      throw new ConflictError(`Schema '${profile.schema_name}' is used by profile(s): ${users.join(', ')}`);
    }
    ({ dropped: schemaDeleted } = await dropTenantSchema(
      deps.tenancy,
      tenant,
      guarded.record,
      profile.schema_name,
    ));
  }
  await deps.store.remove(tenant.full, name);
  deps.views.forget(tenant.full);
  return {
    profile_name: name,
    tenant_id: tenant.full,
    schema_deleted: schemaDeleted,
    deleted_at: deps.now(),
  };
}

/**
 * Deploys the schema of a profile for the tenant: the tenant's own profile of that name, else the shipped one.
 * A deploy that fails answers `failed` with the reason (HTTP 200).
 */
export async function deployProfile(
  deps: ProfilesDeps,
  name: string,
  input: Profiles.DeployProfileRequest,
): Promise<Profiles.ProfileDeployment> {
  const guarded = await requireTenant(deps.tenancy, input.tenant_id);
  const { tenant } = guarded;
  const schemaName =
    (await deps.store.latest(tenant.full, name))?.schema_name ?? deps.shipped.get(name)?.schema_name;
  if (!schemaName) throw notFound(name, tenant);
  const answer = {
    profile_name: name,
    tenant_id: tenant.full,
    schema_name: schemaName,
    tenant_schema_name: tenantSchemaName(schemaName, tenant),
  };
  if (!deps.tenancy.catalog.has(schemaName)) {
    return {
      ...answer,
      deployment_status: 'failed',
      deployed_at: deps.now(),
      error_message: `Schema template '${schemaName}_schema.json' not found`,
    };
  }
  try {
    const { status } = await deployTenantSchema(deps.tenancy, tenant, guarded.record, schemaName, {
      force: input.force,
    });
    return { ...answer, deployment_status: status, deployed_at: deps.now() };
  } catch (error) {
    log.warn('profile deploy failed', { tenant: tenant.full, profile: name, error });
    return {
      ...answer,
      deployment_status: 'failed',
      deployed_at: deps.now(),
      error_message: (error as Error).message,
    };
  }
}

/** Removes every profile of a deleted tenant; answers how many versions were removed. */
export async function purgeTenantProfiles(deps: ProfilesDeps, tenantFullId: string): Promise<number> {
  const removed = await deps.store.purgeTenant(tenantFullId);
  deps.views.forget(tenantFullId);
  return removed;
}
