/** Organizations: create, read, list and delete (which deletes every tenant first). */
import type { Organizations } from '@tessera/api';
import { ConflictError, NotFoundError, validateOrgId } from '@tessera/core';
import type { TenancyDeps } from './deps';
import { type Organization, publicTenant } from './records';
import { deleteTenantRecord, refuseReserved } from './tenants';

export type CreateOrganizationInput = Organizations.CreateOrganizationRequest;

async function withTenantCount(deps: TenancyDeps, org: Organization): Promise<Organizations.Organization> {
  const tenants = await deps.store.listTenants(org.org_id);
  return { ...org, tenant_count: tenants.filter((t) => t.status !== 'creating').length };
}

export async function createOrganization(
  deps: TenancyDeps,
  input: CreateOrganizationInput,
): Promise<Organizations.Organization> {
  const orgId = validateOrgId(input.org_id);
  refuseReserved(orgId);
  const org: Organization = {
    org_id: orgId,
    org_name: input.org_name ?? orgId.charAt(0).toUpperCase() + orgId.slice(1),
    created_at: deps.now(),
    created_by: input.created_by,
    status: 'active',
    config: {},
  };
  if (!(await deps.store.putOrganizationIfAbsent(org)))
    throw new ConflictError(`Organization ${orgId} already exists`);
  return { ...org, tenant_count: 0 };
}

async function requireOrganization(deps: TenancyDeps, rawOrgId: string): Promise<Organization> {
  const orgId = validateOrgId(rawOrgId);
  const org = await deps.store.getOrganization(orgId);
  if (!org) throw new NotFoundError(`Organization ${orgId} not found`);
  return org;
}

export async function getOrganization(deps: TenancyDeps, rawOrgId: string) {
  return withTenantCount(deps, await requireOrganization(deps, rawOrgId));
}

export async function listOrganizations(deps: TenancyDeps): Promise<Organizations.OrganizationList> {
  const orgs = await deps.store.listOrganizations();
  const organizations = await Promise.all(
    orgs.sort((a, b) => a.org_id.localeCompare(b.org_id)).map((org) => withTenantCount(deps, org)),
  );
  return { organizations, total_count: organizations.length };
}

export async function listOrganizationTenants(
  deps: TenancyDeps,
  rawOrgId: string,
): Promise<Organizations.OrganizationTenants> {
  const org = await requireOrganization(deps, rawOrgId);
  const tenants = (await deps.store.listTenants(org.org_id))
    .filter((record) => record.status !== 'creating')
    .map(publicTenant);
  return { tenants, total_count: tenants.length, org_id: org.org_id };
}

export async function deleteOrganization(
  deps: TenancyDeps,
  rawOrgId: string,
): Promise<Organizations.OrganizationDeleted> {
  const org = await requireOrganization(deps, rawOrgId);
  const deleted: string[] = [];
  for (const record of await deps.store.listTenants(org.org_id)) {
    await deleteTenantRecord(deps, record);
    deleted.push(record.tenant_full_id);
  }
  await deps.store.deleteOrganization(org.org_id);
  return {
    status: 'deleted',
    org_id: org.org_id,
    tenants_deleted: deleted.length,
    deleted_tenant_ids: deleted,
  };
}
