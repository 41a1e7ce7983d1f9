/** Admin routes of organizations. */
import { Organizations } from '@tessera/api';
import { tenantAdmin } from '@tessera/functions/tenant-data';
import { httpRoute, reply } from '@tessera/http';
import {
  createOrganization as create,
  getOrganization as get,
  listOrganizations as list,
  listOrganizationTenants as listTenants,
  deleteOrganization as remove,
} from '@tessera/tenancy';

const deps = tenantAdmin();

export const createOrganization = httpRoute(Organizations.createOrganization, async ({ body }) =>
  reply(201, await create(deps, body)),
);

export const listOrganizations = httpRoute(Organizations.listOrganizations, () => list(deps));

export const getOrganization = httpRoute(Organizations.getOrganization, ({ path }) => get(deps, path.org_id));

export const listOrganizationTenants = httpRoute(Organizations.listOrganizationTenants, ({ path }) =>
  listTenants(deps, path.org_id),
);

export const deleteOrganization = httpRoute(Organizations.deleteOrganization, ({ path }) =>
  remove(deps, path.org_id),
);
