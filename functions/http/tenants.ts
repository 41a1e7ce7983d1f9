/** Admin routes of tenants and their router tier. */
import { httpRoute, reply } from '@tessera/http';
import {
  createTenant as create,
  getTenant as get,
  getTier,
  deleteTenant as remove,
  setTier,
  tenancy,
} from '@tessera/tenancy';
import { z } from 'zod';

const deps = tenancy();
const tenantPath = z.object({ tenant_full_id: z.string() });

export const createTenant = httpRoute(
  {
    body: z.object({
      tenant_id: z.string(),
      org_id: z.string().optional(),
      created_by: z.string().min(1).default('api'),
      base_schemas: z.array(z.string().min(1)).min(1).max(20).optional(),
    }),
  },
  async ({ body }) => reply(201, await create(deps, body)),
);

export const getTenant = httpRoute({ path: tenantPath }, ({ path }) => get(deps, path.tenant_full_id));

export const deleteTenant = httpRoute({ path: tenantPath }, ({ path }) => remove(deps, path.tenant_full_id));

export const setTenantTier = httpRoute(
  {
    path: tenantPath,
    body: z.object({
      tier: z
        .string()
        .regex(
          /^[a-z0-9_-]{1,32}$/,
          'tier must be 1 to 32 lower-case letters, digits, hyphens or underscores',
        ),
    }),
  },
  ({ path, body }) => setTier(deps, path.tenant_full_id, body.tier),
);

export const getTenantTier = httpRoute({ path: tenantPath }, ({ path }) =>
  getTier(deps, path.tenant_full_id),
);
