/** Admin routes of the configuration records: the system configuration and each tenant's records. */
import { Config } from '@tessera/api';
import {
  config,
  getSystemConfig as getSystem,
  getTenantConfig as getTenant,
  putSystemConfig as putSystem,
  putTenantConfig as putTenant,
  rollbackSystemConfig as rollbackSystem,
  rollbackTenantConfig as rollbackTenant,
  systemConfigHistory as systemHistory,
  tenantConfigHistory as tenantHistory,
} from '@tessera/config';
import { httpRoute, validate } from '@tessera/http';

const deps = config();

export const getSystemConfig = httpRoute(Config.getSystemConfig, () => getSystem(deps));

export const putSystemConfig = httpRoute(Config.putSystemConfig, ({ body, query }) =>
  putSystem(deps, body, query.created_by),
);

export const systemConfigHistory = httpRoute(Config.systemConfigHistory, ({ query }) =>
  systemHistory(deps, query.limit),
);

export const rollbackSystemConfig = httpRoute(Config.rollbackSystemConfig, ({ body }) =>
  rollbackSystem(deps, body.version, body.created_by),
);

export const getTenantConfig = httpRoute(Config.getTenantConfig, ({ path }) =>
  getTenant(deps, path.tenant_full_id, path.kind),
);

// The body is the record of the path's kind: validated against that kind's fields (422 on any other).
export const putTenantConfig = httpRoute(Config.putTenantConfig, ({ path, body, query }) =>
  putTenant(
    deps,
    path.tenant_full_id,
    path.kind,
    validate('body', Config.configSchemas[path.kind], body),
    query.created_by,
  ),
);

export const tenantConfigHistory = httpRoute(Config.tenantConfigHistory, ({ path, query }) =>
  tenantHistory(deps, path.tenant_full_id, path.kind, query.limit),
);

export const rollbackTenantConfig = httpRoute(Config.rollbackTenantConfig, ({ path, body }) =>
  rollbackTenant(deps, path.tenant_full_id, path.kind, body.version, body.created_by),
);
