/** Admin routes of tenants and their router tier. */
import { Tenants } from '@tessera/api';
import { tenantAdmin } from '@tessera/functions/tenant-data';
import { httpRoute, reply } from '@tessera/http';
import {
  createTenant as create,
  getTenant as get,
  getTier,
  deleteTenant as remove,
  setTier,
} from '@tessera/tenancy';

const deps = tenantAdmin();

export const createTenant = httpRoute(Tenants.createTenant, async ({ body }) =>
  reply(201, await create(deps, body)),
);

export const getTenant = httpRoute(Tenants.getTenant, ({ path }) => get(deps, path.tenant_full_id));

export const deleteTenant = httpRoute(Tenants.deleteTenant, ({ path }) => remove(deps, path.tenant_full_id));

export const setTenantTier = httpRoute(Tenants.setTenantTier, ({ path, body }) =>
  setTier(deps, path.tenant_full_id, body.tier),
);

export const getTenantTier = httpRoute(Tenants.getTenantTier, ({ path }) =>
  getTier(deps, path.tenant_full_id),
);
