/** Admin routes of organizations. */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, TenantDeleteIncomplete } from './errors';
import { Actor, name } from './ids';
import { Tenant } from './tenants';

export const Organization = z
  .object({
    org_id: z.string(),
    org_name: z.string(),
    created_at: z.number().int().meta({ description: 'Epoch milliseconds.' }),
    created_by: z.string(),
    status: z.literal('active'),
    config: z.record(z.string(), z.unknown()),
    tenant_count: z.number().int(),
  })
  .meta({ id: 'Organization' });
export type Organization = z.infer<typeof Organization>;

export const CreateOrganizationRequest = z.strictObject({
  org_id: z.string(),
  org_name: name(200, 1).optional(),
  created_by: Actor.default('api'),
});
export type CreateOrganizationRequest = z.output<typeof CreateOrganizationRequest>;

export const OrganizationList = z.object({
  organizations: z.array(Organization),
  total_count: z.number().int(),
});
export type OrganizationList = z.infer<typeof OrganizationList>;

export const OrganizationTenants = z.object({
  tenants: z.array(Tenant),
  total_count: z.number().int(),
  org_id: z.string(),
});
export type OrganizationTenants = z.infer<typeof OrganizationTenants>;

export const OrganizationDeleted = z.object({
  status: z.literal('deleted'),
  org_id: z.string(),
  tenants_deleted: z.number().int(),
  deleted_tenant_ids: z.array(z.string()),
});
export type OrganizationDeleted = z.infer<typeof OrganizationDeleted>;

const orgPath = z.object({ org_id: z.string() });
const invalidOrgId = plain(
  "`org_id cannot be empty`, `Invalid org_id '<x>': only alphanumeric and underscore allowed`.",
);
const unknownOrg = plain('`Organization <id> not found`.');

export const createOrganization = route({
  id: 'createOrganization',
  group: 'organizations',
  method: 'POST',
  route: '/admin/organizations',
  summary: 'Create an organization',
  body: CreateOrganizationRequest,
  responses: { 201: { description: 'The organization, with no tenants yet.', schema: Organization } },
  errors: {
    400: plain(`${invalidOrgId.description} The reserved \`__system__\` cannot be created.`),
    409: plain('`Organization <id> already exists`.'),
    503: outage,
  },
});

export const listOrganizations = route({
  id: 'listOrganizations',
  group: 'organizations',
  method: 'GET',
  route: '/admin/organizations',
  summary: 'Every organization, by id',
  responses: {
    200: { description: 'The organizations with their tenant counts.', schema: OrganizationList },
  },
  errors: { 503: outage },
});

export const getOrganization = route({
  id: 'getOrganization',
  group: 'organizations',
  method: 'GET',
  route: '/admin/organizations/{org_id}',
  summary: 'One organization',
  path: orgPath,
  responses: { 200: { description: 'The organization with its tenant count.', schema: Organization } },
  errors: { 400: invalidOrgId, 404: unknownOrg, 503: outage },
});

export const listOrganizationTenants = route({
  id: 'listOrganizationTenants',
  group: 'organizations',
  method: 'GET',
  route: '/admin/organizations/{org_id}/tenants',
  summary: "An organization's tenants",
  path: orgPath,
  responses: { 200: { description: 'The tenants of the organization.', schema: OrganizationTenants } },
  errors: { 400: invalidOrgId, 404: unknownOrg, 503: outage },
});

export const deleteOrganization = route({
  id: 'deleteOrganization',
  group: 'organizations',
  method: 'DELETE',
  route: '/admin/organizations/{org_id}',
  summary: 'Delete an organization and every tenant of it',
  path: orgPath,
  responses: { 200: { description: 'What was deleted.', schema: OrganizationDeleted } },
  errors: {
    400: invalidOrgId,
    404: unknownOrg,
    409: plain('A tenant is being created, or a search-backend table cannot be attributed to its tenant.'),
    503: {
      description: 'A tenant delete stopped part-way, or a backing service did not answer.',
      schema: z.union([TenantDeleteIncomplete, outage.schema]),
    },
  },
});
