/** Settings of the media worker (the ingestion settings are read by @tessera/ingestion). */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z.object({
  /** The job an ECS task was started for (RunTask's container override). Unset: the worker consumes a queue. */
  TESSERA_MEDIA_JOB_ID: z.string().min(1).max(200).optional(),
  /** The queue consumed without a job: default the ingestion queue. */
  TESSERA_MEDIA_QUEUE_URL: z.url().optional(),
  /** Long-poll wait of each receive, seconds. */
  TESSERA_MEDIA_WAIT_SECONDS: z.coerce.number().int().min(0).max(20).default(20),
  /** Visibility of a received message, extended at half of it while its job runs. */
  TESSERA_MEDIA_VISIBILITY_SECONDS: z.coerce.number().int().min(10).max(43_200).default(900),
});

export function parseMediaWorkerEnv(source?: Record<string, string | undefined>) {
  return parseEnv('media worker', schema, source);
}

export const mediaWorkerEnv = parseMediaWorkerEnv();
