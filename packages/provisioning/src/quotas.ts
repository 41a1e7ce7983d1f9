/**
 * The quota a tenant's provisioning records, as ingestion enforces it: `storage_quota` bytes across its
 * uploads (an upload past it answers 413), `cpu_quota` its concurrent ingestion slots. A module of its own
 * (`@tessera/provisioning/quotas`) so ingestion carries only the store.
 */
import { PayloadTooLargeError, type TenantDataOwner } from '@tessera/core';
import { DynamoProvisioningStore } from './dynamo-store';
import { type ProvisioningStore, QuotaRecord } from './store';

let shared: ProvisioningStore | undefined;

/** The provisioning store of the process. */
export function provisioningStore(): ProvisioningStore {
  shared ??= new DynamoProvisioningStore();
  return shared;
}

/** The tenant's quota record, if provisioning set one. */
export async function tenantQuota(
  store: ProvisioningStore,
  tenantId: string,
): Promise<QuotaRecord | undefined> {
  const item = await store.getResource(tenantId, 'quota');
  return item ? QuotaRecord.parse(item) : undefined;
}

/** Counts an upload's bytes against the tenant's storage quota; 413 when they would exceed it. */
export async function reserveUploadBytes(
  store: ProvisioningStore,
  tenantId: string,
  bytes: number,
): Promise<void> {
  const quota = await store.reserveStorage(tenantId, bytes);
  if (quota !== undefined) {
    throw new PayloadTooLargeError(`Tenant '${tenantId}' storage quota of ${quota} bytes exceeded`);
  }
}

/** The tenant's concurrent ingestion slots: its `cpu_quota`, else the deployment's `fallback`. */
export async function ingestionSlots(
  store: ProvisioningStore,
  tenantId: string,
  fallback: number,
): Promise<number> {
  return (await tenantQuota(store, tenantId))?.cpu_quota ?? fallback;
}

/** A tenant's executions and provisioned resources, emptied by a tenant delete (functions/tenant-data.ts). */
export function provisioningData(store: ProvisioningStore = provisioningStore()): TenantDataOwner {
  return { name: 'provisioning', purge: (tenant) => store.purgeTenant(tenant.full) };
}

export type { ProvisioningStore, QuotaRecord };
