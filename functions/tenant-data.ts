/**
 * Every store that holds data of a tenant, registered in the order a tenant delete purges them: the one
 * place to add a store (see `TenantDataOwners` in @tessera/tenancy). The functions that remove tenants take
 * their tenancy deps from `tenantAdmin()`; a removal refuses to run with deps that name no owners.
 */
import { conversationsData, harnessKeysData } from '@tessera/chat/tenant-data';
import { config, configData } from '@tessera/config';
import { taskEvents, taskEventsTenantData } from '@tessera/events';
import { ingestionData } from '@tessera/ingestion/tenant-data';
import { jobsData } from '@tessera/jobs/tenant-data';
import { instructionsData, memories, memoriesData } from '@tessera/memories';
import { messagingData } from '@tessera/messaging';
import { profiles, profilesData } from '@tessera/profiles';
import { provisioningData } from '@tessera/provisioning/quotas';
import { type TenancyDeps, TenantDataOwners, tenancy } from '@tessera/tenancy';
import { wiki, wikiData } from '@tessera/wiki';

let admin: TenancyDeps | undefined;

/** The tenancy deps, with the owners of every store holding tenant data. */
export function tenantAdmin(): TenancyDeps {
  if (admin) return admin;
  const deps = tenancy();
  deps.owners ??= new TenantDataOwners()
    // Ingestion first: it settles its jobs' tasks as jobs end; the task events then end whatever is left.
    .register(ingestionData(taskEvents()))
    .register(taskEventsTenantData(taskEvents()))
    .register(profilesData(profiles()))
    .register(configData(config()))
    .register(provisioningData())
    .register(memoriesData(memories()))
    .register(instructionsData(memories()))
    .register(wikiData(wiki()))
    .register(jobsData())
    .register(conversationsData())
    .register(harnessKeysData())
    .register(messagingData());
  admin = deps;
  return admin;
}
