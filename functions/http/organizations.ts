/** Admin routes of organizations. */
import { httpRoute, reply } from '@tessera/http';
import {
  createOrganization as create,
  getOrganization as get,
  listOrganizations as list,
  listOrganizationTenants as listTenants,
  deleteOrganization as remove,
  tenancy,
} from '@tessera/tenancy';
import { z } from 'zod';

const deps = tenancy();
const orgPath = z.object({ org_id: z.string() });

export const createOrganization = httpRoute(
  {
    body: z.object({
      org_id: z.string(),
      org_name: z.string().min(1).optional(),
      created_by: z.string().min(1).default('api'),
    }),
  },
  async ({ body }) => reply(201, await create(deps, body)),
);

export const listOrganizations = httpRoute({}, () => list(deps));

export const getOrganization = httpRoute({ path: orgPath }, ({ path }) => get(deps, path.org_id));

export const listOrganizationTenants = httpRoute({ path: orgPath }, ({ path }) =>
  listTenants(deps, path.org_id),
);

export const deleteOrganization = httpRoute({ path: orgPath }, ({ path }) => remove(deps, path.org_id));
