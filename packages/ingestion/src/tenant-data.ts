/**
 * What ingestion holds of a tenant, and its purge at the tenant's delete: jobs nobody works end `cancelled`
 * (a queued presigned job waits under a 6-hour lease, and would have waited it out), jobs a worker runs are
 * waited for (their task was told to cancel: a run of several files stops between files, a one-file job
 * ends), then the tenant's uploads, job records, source hashes and run slots go.
 *
 * Light on purpose (no pipeline): the functions that delete tenants import it through
 * `@tessera/ingestion/tenant-data`, not the package's index.
 */
import type { TenantDataOwner, TenantId } from '@tessera/core';
import {
  DEFAULT_PURGE_TIMING,
  deletedReason,
  type PurgeTiming,
  producerWorking,
  settleTenantWork,
  type TaskEvents,
} from '@tessera/events';
import { DynamoJobRepository } from './dynamo-job-repository';
import { INCOMING_PREFIX, tenantPrefix } from './keys';
import { TERMINAL_STATES } from './model';
import type { BlobStore, JobRepository } from './ports';
import { S3BlobStore } from './s3-blob-store';
import { endJob } from './settle';

export interface IngestionStores {
  jobs: JobRepository;
  blobs: BlobStore;
  events: TaskEvents;
}

/** Every prefix of the uploads bucket that holds objects of the tenant. */
export const tenantBlobPrefixes = (tenantId: string) => [
  `jobs/${tenantId}/`,
  `${INCOMING_PREFIX}${tenantId}/`,
  tenantPrefix(tenantId),
];

async function settleJobs(stores: IngestionStores, tenant: TenantId): Promise<string[]> {
  const working: string[] = [];
  for (const job of await stores.jobs.tenantJobs(tenant.full)) {
    if (TERMINAL_STATES.includes(job.state)) continue;
    const task = await stores.events.get(job.job_id);
    if (task && producerWorking(stores.events, task)) {
      working.push(job.job_id);
      continue;
    }
    const reason = deletedReason(tenant);
    await endJob(
      stores,
      job.job_id,
      'cancelled',
      { reason },
      { type: 'status', state: 'cancelled', message: reason },
    );
  }
  return working;
}

export function ingestionTenantData(
  stores: IngestionStores,
  timing: PurgeTiming = DEFAULT_PURGE_TIMING,
): TenantDataOwner {
  return {
    name: 'ingestion jobs, sources and uploads',
    async purge(tenant) {
      await settleTenantWork('ingestion jobs', tenant, timing, () => settleJobs(stores, tenant));
      for (const prefix of tenantBlobPrefixes(tenant.full)) {
        const keys = (await stores.blobs.list(prefix)).map((blob) => blob.key);
        if (keys.length > 0) await stores.blobs.delete(keys);
      }
      await stores.jobs.forgetTenant(tenant.full);
    },
  };
}

/** The production owner: the DynamoDB job repository and the S3 uploads bucket. */
export function ingestionData(events: TaskEvents): TenantDataOwner {
  return ingestionTenantData({ jobs: new DynamoJobRepository(), blobs: new S3BlobStore(), events });
}
