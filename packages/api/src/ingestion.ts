/** Ingestion routes (document 3): uploads (posted or presigned), runs over the bucket, and a job's status. */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';
import { Cancelled, CancelRequest, cancelErrors, TaskEvent } from './events';
import { MediaType, ProfileName, TaskId } from './ids';
import { queryBoolean } from './params';

export const JobState = z.enum(['queued', 'running', 'complete', 'failed', 'cancelled']);
export type JobState = z.infer<typeof JobState>;

export const FileStatus = z.enum(['indexed', 'skipped', 'failed']);
export type FileStatus = z.infer<typeof FileStatus>;

/** Why a media stage did not run (clarifications, "Media"): `{transcription: '<reason>', captioning: '<reason>'}`. */
export const SkippedStages = z
  .object({ transcription: z.string().optional(), captioning: z.string().optional() })
  .meta({ id: 'SkippedStages' });

export const SpeechSpan = z.object({ start: z.number(), end: z.number() }).meta({ id: 'SpeechSpan' });

/** What the media analysis of a file found and which models made it. */
export const MediaSummary = z
  .object({
    kind: z.enum(['video', 'audio', 'image', 'pdf']),
    duration: z.number().optional().meta({ description: 'Seconds (video, audio).' }),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    keyframes: z.number().int().optional(),
    transcript_segments: z.number().int().optional(),
    ocr_pages: z.number().int().optional().meta({ description: 'Pages of a scanned PDF read by OCR.' }),
    models: z
      .record(z.string(), z.string())
      .meta({ description: 'The model of each stage, named honestly.' }),
  })
  .meta({ id: 'MediaSummary' });

export const FileResult = z
  .object({
    source_doc_id: z.string(),
    profile: z.string(),
    status: FileStatus,
    chunks_created: z.number().int(),
    documents_fed: z.number().int(),
    graph_nodes: z.number().int(),
    graph_edges: z.number().int(),
    error: z.string().optional(),
    error_type: z.string().optional(),
    extraction: z
      .string()
      .optional()
      .meta({ description: 'Why the server-side graph pass produced nothing for this file.' }),
    skipped: SkippedStages.optional().meta({ description: 'Media stages that did not run, and why.' }),
    speech_spans: z
      .array(SpeechSpan)
      .optional()
      .meta({ description: 'Where someone speaks (seconds), when no transcript was made; at most 1,000.' }),
    media: MediaSummary.optional(),
  })
  .meta({ id: 'FileResult' });
export type FileResult = z.infer<typeof FileResult>;

/** The upload response of document 3, plus the per-file detail of a job of several files. */
export const UploadResult = z
  .object({
    status: z.enum(['complete', 'failed', 'cancelled']),
    job_id: z.string(),
    video_id: z.string().meta({ description: "Document 3's name for the source id of the (first) file." }),
    chunks_created: z.number().int(),
    documents_fed: z.number().int(),
    graph_nodes: z.number().int(),
    graph_edges: z.number().int(),
    processing_time: z.number().meta({ description: 'Seconds.' }),
    files_skipped: z.number().int(),
    files_failed: z.number().int(),
    files: z.array(FileResult),
    claims: z
      .string()
      .meta({ description: 'Whether claims (graph edges from text) were extracted, or why not.' }),
    error: z.string().optional(),
    error_type: z.string().optional(),
    reason: z.string().optional(),
    skipped: SkippedStages.optional().meta({ description: "The file's skipped stages, for a one-file job." }),
    speech_spans: z
      .array(SpeechSpan)
      .optional()
      .meta({ description: "The file's speech spans, for a one-file job without a transcript." }),
  })
  .meta({ id: 'UploadResult' });
export type UploadResult = z.infer<typeof UploadResult>;

export const SubmittedFile = z.object({ name: z.string(), profile: z.string(), size: z.number().int() });
export type SubmittedFile = z.infer<typeof SubmittedFile>;

export const Submitted = z
  .object({
    job_id: z.string(),
    status: z.literal('queued'),
    tenant_id: z.string(),
    files: z.array(SubmittedFile),
    events_url: z.string().meta({ description: "The job's SSE stream." }),
  })
  .meta({ id: 'Submitted' });
export type Submitted = z.infer<typeof Submitted>;

export const StillRunning = Submitted.extend({ message: z.string() });

export const Presigned = Submitted.extend({
  upload: z.object({
    method: z.literal('PUT'),
    url: z.string(),
    headers: z.record(z.string(), z.string()).meta({ description: 'Headers the PUT must carry.' }),
    expires_in: z.number().int().meta({ description: 'Seconds.' }),
  }),
});
export type Presigned = z.infer<typeof Presigned>;

export const StatusEntry = z.object({
  state: z.enum(['queued', 'running', 'retrying', 'complete', 'failed', 'cancelled']),
  ingest_id: z.string(),
  event_id: z.string(),
  timestamp: z.string(),
  offset: z.number().int(),
  event: TaskEvent.optional().meta({ description: 'A pipeline event of a running job.' }),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  error_type: z.string().optional(),
  reason: z.string().optional(),
});
export type StatusEntry = z.infer<typeof StatusEntry>;

export const JobStatus = z.object({
  job_id: z.string(),
  tenant_id: z.string(),
  state: JobState,
  files: z.array(SubmittedFile),
  deliveries: z.number().int().meta({ description: 'Times a worker took the job up.' }),
  result: UploadResult.optional(),
  error: z.string().optional(),
  error_type: z.string().optional(),
  reason: z.string().optional(),
  entries: z.array(StatusEntry),
});
export type JobStatus = z.infer<typeof JobStatus>;

/** The text fields of an upload's form (its files come in `file` parts). */
export const UploadFields = z.strictObject({
  tenant_id: z.string(),
  profile: ProfileName.optional().meta({ description: 'Default: by file extension.' }),
  wait: queryBoolean(false),
});
export type UploadFields = z.output<typeof UploadFields>;

export const PresignRequest = z.strictObject({
  tenant_id: z.string(),
  filename: z.string().min(1).max(1000),
  size: z.number().int().min(0),
  profile: ProfileName.optional(),
  content_type: MediaType.optional().meta({ description: 'The Content-Type the PUT must carry.' }),
});
export type PresignRequest = z.output<typeof PresignRequest>;

export const StartRequest = z
  .strictObject({
    tenant_id: z.string(),
    profile: ProfileName.optional(),
    prefix: z.string().min(1).max(1000).optional(),
    keys: z.array(z.string().min(1).max(1000)).min(1).max(10_000).optional(),
  })
  .refine((body) => !(body.prefix && body.keys), { message: 'give prefix or keys, not both' });
export type StartRequest = z.output<typeof StartRequest>;

const refusedFile = plain(
  'An empty file, a file name that is not usable or given twice, a profile that is unknown or does not take ' +
    'the file, or a malformed tenant id.',
);

export const upload = route({
  id: 'upload',
  group: 'ingestion',
  method: 'POST',
  route: '/ingestion/upload',
  summary: 'Upload files and queue one ingestion job over them',
  description: '`wait=true` (query or form) answers when the job ended, or 202 after about 25 s.',
  query: z.object({ wait: queryBoolean(false) }),
  form: {
    fields: UploadFields,
    file: 'file',
    document: UploadFields.extend({
      file: z
        .array(z.string().meta({ format: 'binary' }))
        .meta({ description: 'One or more files; a file name may be a relative path.' }),
    }),
  },
  responses: {
    200: { description: 'The job ended (with `wait=true`).', schema: UploadResult },
    202: {
      description: 'The job is queued; with `wait=true` it is still running and `message` says so.',
      schema: z.union([StillRunning, Submitted]),
    },
  },
  errors: {
    400: plain(`${refusedFile.description} Or a malformed multipart body.`),
    404: tenantGuard[404],
    409: tenantGuard[409],
    413: plain("A file is over the upload limit, or the upload would pass the tenant's storage quota."),
    415: plain('The body is not multipart/form-data.'),
    503: outage,
  },
});

export const presign = route({
  id: 'presign',
  group: 'ingestion',
  method: 'POST',
  route: '/ingestion/uploads',
  summary: 'A presigned PUT for one file; its job starts when the object lands',
  body: PresignRequest,
  responses: {
    201: { description: 'The job (queued) and the PUT to send the file with.', schema: Presigned },
  },
  errors: {
    400: refusedFile,
    404: tenantGuard[404],
    409: tenantGuard[409],
    413: plain("The file is over the upload limit, or its size would pass the tenant's storage quota."),
    503: outage,
  },
});

export const start = route({
  id: 'start',
  group: 'ingestion',
  method: 'POST',
  route: '/ingestion/start',
  summary: "A run over objects under the tenant's prefix of the uploads bucket",
  body: StartRequest,
  responses: { 202: { description: 'The job, queued.', schema: Submitted } },
  errors: {
    400: plain(
      `No objects to ingest, a named key that does not exist, or as for uploads: ${refusedFile.description}`,
    ),
    404: tenantGuard[404],
    409: tenantGuard[409],
    413: plain('An object is over the upload limit.'),
    503: outage,
  },
});

export const status = route({
  id: 'status',
  group: 'ingestion',
  method: 'GET',
  route: '/ingestion/{job_id}/events',
  summary: "A job's state, result and status entries",
  path: z.object({ job_id: TaskId }),
  responses: { 200: { description: 'The job.', schema: JobStatus } },
  errors: { 404: plain('`No ingestion job found with ID <id>`.'), 503: outage },
});

export const cancel = route({
  id: 'cancel',
  group: 'ingestion',
  method: 'POST',
  route: '/events/ingestion/{job_id}/cancel',
  summary: 'Request the cancellation of an ingestion job',
  description: 'A queued job is settled at once, without running.',
  path: z.object({ job_id: TaskId }),
  body: CancelRequest,
  responses: {
    200: { description: 'The cancellation is recorded; the first reason stays.', schema: Cancelled },
  },
  errors: cancelErrors,
});
