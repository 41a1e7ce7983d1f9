/** Ingestion routes: uploads (posted or presigned), runs over the bucket, and a job's status. */
import { Ingestion } from '@tessera/api';
import { httpRoute, reply } from '@tessera/http';
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

const deps = ingestion();

/** How long `wait=true` waits for the job; API Gateway gives up at 30 s. */
const WAIT_MS = 25_000;

export const upload = httpRoute(
  { ...Ingestion.upload, maxFileBytes: ingestionEnv.maxUploadBytes },
  async ({ query, form }) => {
    const submitted = await submitUpload(deps, { ...form.fields, files: form.files });
    if (!(query.wait || form.fields.wait)) return reply(202, submitted);
    const job = await waitForJob(deps, submitted.job_id, WAIT_MS);
    if (!job?.result)
      return reply(202, { ...submitted, message: 'The job is still running; follow events_url' });
    return job.result;
  },
);

export const presign = httpRoute(Ingestion.presign, async ({ body }) =>
  reply(201, await presignUpload(deps, body)),
);

export const start = httpRoute(Ingestion.start, async ({ body }) => reply(202, await startRun(deps, body)));

/** `POST /events/ingestion/{job_id}/cancel`: the task's cancel, and a queued job settled at once. */
export const cancel = httpRoute(Ingestion.cancel, ({ path, body }) =>
  cancelJob(deps, path.job_id, body.reason),
);

export const status = httpRoute(Ingestion.status, ({ path }) => jobStatus(deps, path.job_id));
