/** Settings of uploads and the ingestion worker. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z
  .object({
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
    /**
     * `off`: this process runs no media pipeline (like the ingestion Lambda, whose bundle has no ffmpeg):
     * media jobs go to the media worker (TESSERA_MEDIA_TASKS), or their files fail `UnsupportedContent`.
     */
    TESSERA_MEDIA_TOOLS: z.enum(['on', 'off']).default('on'),
    /**
     * Where jobs go that this process cannot or should not run (media without tools here, media that would
     * outlive the attempt): `ecs` runs the media worker's task definition on Fargate, `process` starts
     * TESSERA_MEDIA_TASK_COMMAND here as the same task would run (the local stand-in), `none` keeps them here.
     */
    TESSERA_MEDIA_TASKS: z.enum(['none', 'ecs', 'process']).default('none'),
    TESSERA_MEDIA_CLUSTER: z.string().min(1).optional(),
    TESSERA_MEDIA_TASK_DEFINITION: z.string().min(1).optional(),
    /** The media worker's container in its task definition. */
    TESSERA_MEDIA_CONTAINER: z.string().min(1).default('media-worker'),
    /** Comma-separated subnet and security group ids of the task's network. */
    TESSERA_MEDIA_SUBNETS: z.string().min(1).optional(),
    TESSERA_MEDIA_SECURITY_GROUPS: z.string().min(1).optional(),
    TESSERA_MEDIA_ASSIGN_PUBLIC_IP: z.enum(['true', 'false']).default('false'),
    /** The media worker's command (a JSON array of strings) for `process`. */
    TESSERA_MEDIA_TASK_COMMAND: z.string().min(1).optional(),
    /** Media files analysed at once by this process (each runs ffmpeg, OCR and speech detection). */
    TESSERA_MEDIA_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
    /**
     * Seconds of work a minute of media takes here, to tell whether a file would outlive the attempt (then
     * the job is handed to the media worker before the file starts). Measured: about 13 s for video with the
     * embedded defaults on 2 cores; transcription adds the endpoint's time.
     */
    TESSERA_MEDIA_SECONDS_PER_MINUTE: z.coerce.number().positive().default(30),
    /** Where media files are spooled from the blob store (default the system's temporary directory). */
    TESSERA_MEDIA_SPOOL_DIR: z.string().min(1).optional(),
  })
  .superRefine((env, ctx) => {
    if (env.TESSERA_MEDIA_TASKS === 'ecs') {
      for (const key of [
        'TESSERA_MEDIA_CLUSTER',
        'TESSERA_MEDIA_TASK_DEFINITION',
        'TESSERA_MEDIA_SUBNETS',
      ] as const) {
        if (!env[key])
          ctx.addIssue({ code: 'custom', path: [key], message: 'required when TESSERA_MEDIA_TASKS is ecs' });
      }
    }
    if (env.TESSERA_MEDIA_TASKS === 'process') {
      const command = commandOf(env.TESSERA_MEDIA_TASK_COMMAND);
      if (!command) {
        ctx.addIssue({
          code: 'custom',
          path: ['TESSERA_MEDIA_TASK_COMMAND'],
          message: 'a JSON array of strings is required when TESSERA_MEDIA_TASKS is process',
        });
      }
    }
  });

/** A command given as a JSON array of strings, or undefined. */
function commandOf(value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((p) => typeof p === 'string'))
      return parsed;
  } catch {
    // not JSON
  }
  return undefined;
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const env = parseEnv('ingestion', schema);

/** Under the names the domain uses for them. */
export const ingestionEnv = {
  maxUploadBytes: env.uploadMaxBytes,
  tenantSlots: env.ingestTenantSlots,
  maxDeliveries: env.ingestMaxDeliveries,
  slotRetrySeconds: env.ingestSlotRetrySeconds,
  extractionConcurrency: env.extractionConcurrency,
  presignSeconds: env.presignSeconds,
  mediaTools: env.mediaTools === 'on',
  mediaTasks: env.mediaTasks,
  ecsTask: {
    cluster: env.mediaCluster ?? '',
    taskDefinition: env.mediaTaskDefinition ?? '',
    container: env.mediaContainer,
    subnets: list(env.mediaSubnets),
    securityGroups: list(env.mediaSecurityGroups),
    assignPublicIp: env.mediaAssignPublicIp === 'true',
  },
  mediaTaskCommand: commandOf(env.mediaTaskCommand),
  mediaConcurrency: env.mediaConcurrency,
  mediaSecondsPerMinute: env.mediaSecondsPerMinute,
  mediaSpoolDir: env.mediaSpoolDir,
};
