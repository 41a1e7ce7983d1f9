/** The provisioning workflow's start: `POST /admin/tenants/{tenant_full_id}/provision`. */
import { Provisioning } from '@tessera/api';
import { httpRoute, reply } from '@tessera/http';
import { provisioning, startProvisioning } from '@tessera/provisioning';

const deps = provisioning();

export const provisionTenant = httpRoute(Provisioning.provisionTenant, async ({ path, body }) =>
  reply(202, await startProvisioning(deps, path.tenant_full_id, body)),
);
