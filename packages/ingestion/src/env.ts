/** Settings of uploads and the ingestion worker. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z.object({
  /** Largest file an upload may carry (default 5 GiB). */
  TESSERA_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 ** 3),
  /** Jobs of one tenant that may run at once, so one tenant's burst cannot starve the others. */
  TESSERA_INGEST_TENANT_SLOTS: z.coerce.number().int().min(1).max(100).default(2),
  /** Deliveries after which a job's message is dead (the queue's redrive moves it on the next one). */
  TESSERA_INGEST_MAX_DELIVERIES: z.coerce.number().int().min(1).default(5),
  /** Seconds a job waiting for a tenant slot is put back on the queue for. */
  TESSERA_INGEST_SLOT_RETRY_SECONDS: z.coerce.number().int().min(0).max(900).default(2),
  /** Segments extracted at once by the server-side graph pass. */
  TESSERA_EXTRACTION_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Seconds a presigned upload URL stays valid. */
  TESSERA_PRESIGN_SECONDS: z.coerce.number().int().min(60).max(604_800).default(3600),
});

const env = parseEnv('ingestion', schema);

/** Under the names the domain uses for them. */
export const ingestionEnv = {
  maxUploadBytes: env.uploadMaxBytes,
  tenantSlots: env.ingestTenantSlots,
  maxDeliveries: env.ingestMaxDeliveries,
  slotRetrySeconds: env.ingestSlotRetrySeconds,
  extractionConcurrency: env.extractionConcurrency,
  presignSeconds: env.presignSeconds,
};
