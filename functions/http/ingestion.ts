/** Ingestion routes: uploads (posted or presigned), runs over the bucket, and a job's status. */
import { CancelRequest } from '@tessera/events';
import { httpRoute, queryBoolean, reply } from '@tessera/http';
import {
  cancelJob,
  ingestion,
  ingestionEnv,
  jobStatus,
  presignUpload,
  startRun,
  submitUpload,
  waitForJob,
} from '@tessera/ingestion';
import { z } from 'zod';

const deps = ingestion();

/** How long `wait=true` waits for the job; API Gateway gives up at 30 s. */
const WAIT_MS = 25_000;

export const upload = httpRoute(
  {
    query: z.object({ wait: queryBoolean(false) }),
    form: {
      fields: z.object({
        tenant_id: z.string(),
        profile: z.string().min(1).optional(),
        wait: queryBoolean(false),
      }),
      file: 'file',
    },
    maxFileBytes: ingestionEnv.maxUploadBytes,
  },
  async ({ query, form }) => {
    const submitted = await submitUpload(deps, {
      tenantId: form.fields.tenant_id,
      profile: form.fields.profile,
      files: form.files,
    });
    if (!(query.wait || form.fields.wait)) return reply(202, submitted);
    const job = await waitForJob(deps, submitted.job_id, WAIT_MS);
    if (!job?.result)
      return reply(202, { ...submitted, message: 'The job is still running; follow events_url' });
    return job.result;
  },
);

export const presign = httpRoute(
  {
    body: z.object({
      tenant_id: z.string(),
      filename: z.string().min(1).max(1000),
      size: z.number().int().min(0),
      profile: z.string().min(1).optional(),
      content_type: z.string().min(1).max(200).optional(),
    }),
  },
  async ({ body }) =>
    reply(
      201,
      await presignUpload(deps, {
        tenantId: body.tenant_id,
        filename: body.filename,
        size: body.size,
        profile: body.profile,
        contentType: body.content_type,
      }),
    ),
);

export const start = httpRoute(
  {
    body: z
      .object({
        tenant_id: z.string(),
        profile: z.string().min(1).optional(),
        prefix: z.string().min(1).max(1000).optional(),
        keys: z.array(z.string().min(1).max(1000)).min(1).max(10_000).optional(),
      })
      .refine((body) => !(body.prefix && body.keys), { message: 'give prefix or keys, not both' }),
  },
  async ({ body }) =>
    reply(
      202,
      await startRun(deps, {
        tenantId: body.tenant_id,
        profile: body.profile,
        prefix: body.prefix,
        keys: body.keys,
      }),
    ),
);

/** `POST /events/ingestion/{job_id}/cancel`: the task's cancel, and a queued job settled at once. */
export const cancel = httpRoute(
  { path: z.object({ job_id: z.string().min(1) }), body: CancelRequest },
  ({ path, body }) => cancelJob(deps, path.job_id, body.reason),
);

export const status = httpRoute({ path: z.object({ id: z.string().min(1).max(200) }) }, ({ path }) =>
  jobStatus(deps, path.id),
);
