/**
 * Submitting jobs: files posted to the API, presigned uploads and runs over objects already in the bucket.
 * A job's task is registered at submit (queued, a 6 h lease while it waits) and its message goes through
 * the queue; a submit that fails halfway removes what it stored.
 */
import type { Ingestion } from '@tessera/api';
import { BadRequestError, log, PayloadTooLargeError, ValidationError } from '@tessera/core';
import { QUEUED_INGESTION_LEASE_MS } from '@tessera/events';
import { checkMediaType, SNIFF_BYTES } from '@tessera/media/sniff';
import { streamingUrl } from '@tessera/platform';
import { reserveUploadBytes } from '@tessera/provisioning/quotas';
import { type GuardedTenant, incarnationOf, requireTenant } from '@tessera/tenancy';
import type { IngestionDeps } from './deps';
import { ingestionEnv } from './env';
import { cleanName, incomingKey, newJobId, tenantPrefix, uploadKey } from './keys';
import type { JobFile, JobRecord } from './model';
import { extensionOf, profileFor, readsFile } from './routing';

export interface UploadedFile {
  name: string;
  bytes: Uint8Array;
}

export type Submitted = Ingestion.Submitted;

function checkSize(name: string, size: number): void {
  if (size === 0) throw new BadRequestError(`File '${name}' is empty; there is nothing to ingest`);
  if (size > ingestionEnv.maxUploadBytes) {
    throw new PayloadTooLargeError(
      `File '${name}' is ${size} bytes, over the upload limit of ${ingestionEnv.maxUploadBytes} bytes`,
    );
  }
}

/** The tenant's profiles; read again when the one requested is not among them (created a moment ago elsewhere). */
async function profilesOf(deps: IngestionDeps, tenantFullId: string, requested?: string) {
  const profiles = await deps.content.profilesFor(tenantFullId);
  return requested && !profiles.get(requested)
    ? deps.content.profilesFor(tenantFullId, { fresh: true })
    : profiles;
}

function fileName(raw: string): string {
  const name = cleanName(raw);
  if (!name) throw new BadRequestError(`File name '${raw}' is not usable: give the file a name`);
  return name;
}

async function removeObjects(deps: IngestionDeps, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await deps.blobs
    .delete(keys)
    .catch((error: unknown) => log.warn('could not remove the objects of a failed submit', { keys, error }));
}

/** Registers the job and its task (queued), then queues its message unless an S3 notification will. */
async function register(deps: IngestionDeps, job: JobRecord, enqueue: boolean): Promise<Submitted> {
  await deps.jobs.create(job);
  await deps.events.open({
    task_id: job.job_id,
    kind: 'ingestion',
    tenant_id: job.tenant_id,
    owner: job.job_id,
    leaseMs: QUEUED_INGESTION_LEASE_MS,
    // A worker that dies leaves the job to the next delivery, which resumes it.
    resumable: true,
  });
  await deps.events.append(job.job_id, {
    type: 'status',
    state: 'pending',
    phase: 'queued',
    message: 'queued',
  });
  if (enqueue) await enqueueJob(deps, job.job_id);
  return {
    job_id: job.job_id,
    status: 'queued',
    tenant_id: job.tenant_id,
    files: job.files.map((file) => ({ name: file.name, profile: file.profile, size: file.size })),
    // The stream's own function URL in AWS (API Gateway cannot stream), the API's path locally.
    events_url: streamingUrl('/events/ingestion/{job_id}', { job_id: job.job_id }),
  };
}

export function enqueueJob(deps: IngestionDeps, jobId: string, delaySeconds = 0): Promise<void> {
  return deps.queue.send({ job_id: jobId }, delaySeconds);
}

/**
 * Cancels a job (the task's cancel: 404 unknown, 409 finished). A job still queued is queued once more, so
 * that a worker settles it now, without running it: a presigned job whose file never came has no message
 * of its own, and another job's message may be waiting behind a tenant's slots.
 */
export async function cancelJob(
  deps: IngestionDeps,
  jobId: string,
  reason: string,
): Promise<{ task_id: string; cancelled: true; message: string }> {
  const answer = await deps.events.cancel(jobId, 'ingestion', reason);
  if ((await deps.jobs.state(jobId)) === 'queued') await enqueueJob(deps, jobId);
  return answer;
}

/** Undoes a submit that failed after storing: its objects go, and a registered job ends failed. */
async function abandon(deps: IngestionDeps, job: JobRecord, keys: string[], error: unknown): Promise<never> {
  await removeObjects(deps, keys);
  const message = `The upload could not be queued: ${(error as Error).message}`;
  const ended = await deps.jobs
    .settle(job.job_id, 'failed', { error: message, error_type: 'SubmitFailed' })
    .catch(() => false);
  if (ended) {
    await deps.events
      .append(job.job_id, {
        type: 'error',
        error_type: 'SubmitFailed',
        error_message: message,
        recoverable: false,
      })
      .catch(() => undefined);
  }
  throw error;
}

function newJob(
  { tenant, record }: GuardedTenant,
  files: JobFile[],
  origin: JobRecord['origin'],
  jobId = newJobId(),
): JobRecord {
  const now = Date.now();
  return {
    job_id: jobId,
    tenant_id: tenant.full,
    tenant_incarnation: incarnationOf(record),
    state: 'queued',
    files,
    origin,
    created_at: now,
    updated_at: now,
    deliveries: 0,
  };
}

/** `POST /ingestion/upload`: stores the posted files and queues one job over them. */
export async function submitUpload(
  deps: IngestionDeps,
  request: Pick<Ingestion.UploadFields, 'tenant_id' | 'profile'> & { files: UploadedFile[] },
): Promise<Submitted> {
  const guarded = await requireTenant(deps.content.tenancy, request.tenant_id);
  const { tenant } = guarded;
  if (request.files.length === 0) {
    // Reported as a missing form field is, like tenant_id.
    throw new ValidationError([
      { type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null },
    ]);
  }
  const profiles = await profilesOf(deps, tenant.full, request.profile);
  const jobId = newJobId();
  const key = uploadKey(tenant.full, jobId);
  const seen = new Set<string>();
  let offset = 0;
  const files = request.files.map((file): JobFile => {
    const name = fileName(file.name);
    if (seen.has(name)) throw new BadRequestError(`File '${name}' is given twice in one upload`);
    seen.add(name);
    checkSize(name, file.bytes.byteLength);
    const profile = profileFor(profiles, name, request.profile);
    // A media file whose first bytes are another type than its extension says is refused now (400).
    if (readsFile(profile)) checkMediaType(name, extensionOf(name), file.bytes.subarray(0, SNIFF_BYTES));
    const entry = { name, key, offset, size: file.bytes.byteLength, profile: profile.profile_name };
    offset += file.bytes.byteLength;
    return entry;
  });
  const job = newJob(guarded, files, 'upload', jobId);
  // One object for all the files of an upload: a tree of small files costs one write and one read, not
  // one of each a file.
  const body =
    request.files.length === 1
      ? request.files[0]!.bytes
      : Buffer.concat(request.files.map((file) => file.bytes));
  // Counted against the tenant's storage quota first: 413 past it, and nothing stored.
  if (deps.quotas) await reserveUploadBytes(deps.quotas, tenant.full, body.byteLength);
  let stored = false;
  try {
    await deps.blobs.put(key, body);
    stored = true;
    return await register(deps, job, true);
  } catch (error) {
    return abandon(deps, job, stored ? [key] : [], error);
  }
}

/**
 * `POST /ingestion/uploads`: a presigned PUT for one file. The job is registered now and starts when the
 * object lands (the bucket notifies the queue); the store refuses a body of any other size.
 */
export async function presignUpload(
  deps: IngestionDeps,
  request: Ingestion.PresignRequest,
): Promise<Ingestion.Presigned> {
  const guarded = await requireTenant(deps.content.tenancy, request.tenant_id);
  const { tenant } = guarded;
  const name = fileName(request.filename);
  checkSize(name, request.size);
  const profile = profileFor(await profilesOf(deps, tenant.full, request.profile), name, request.profile);
  const jobId = newJobId();
  const key = incomingKey(tenant.full, jobId, name);
  const job = newJob(
    guarded,
    [{ name, key, size: request.size, profile: profile.profile_name }],
    'presigned',
    jobId,
  );
  // Counted against the tenant's storage quota now: the PUT is signed for exactly this size.
  if (deps.quotas) await reserveUploadBytes(deps.quotas, tenant.full, request.size);
  const url = await deps.blobs.presignPut(key, {
    size: request.size,
    contentType: request.content_type,
    expiresSeconds: ingestionEnv.presignSeconds,
  });
  const submitted = await register(deps, job, false);
  return {
    ...submitted,
    upload: {
      method: 'PUT',
      url,
      headers: {
        'content-length': String(request.size),
        ...(request.content_type ? { 'content-type': request.content_type } : {}),
      },
      expires_in: ingestionEnv.presignSeconds,
    },
  };
}

/**
 * `POST /ingestion/start`: a run over objects the tenant already placed under `tenants/<tenant>/` in the
 * uploads bucket (all of a prefix, or named keys). Cancellation lands between files.
 */
export async function startRun(deps: IngestionDeps, request: Ingestion.StartRequest): Promise<Submitted> {
  const guarded = await requireTenant(deps.content.tenancy, request.tenant_id);
  const { tenant } = guarded;
  const root = tenantPrefix(tenant.full);
  const objects: { key: string; size: number }[] = [];
  if (request.keys) {
    for (const key of request.keys) objects.push({ key: `${root}${fileName(key)}`, size: -1 });
  }
  const prefix = `${root}${request.prefix ? fileName(request.prefix) : ''}`;
  const listed = new Map((await deps.blobs.list(prefix)).map(({ key, size }) => [key, size]));
  if (!request.keys) for (const [key, size] of listed) objects.push({ key, size });
  if (objects.length === 0) {
    throw new BadRequestError(`No objects to ingest under ${deps.blobs.describe(prefix)}`);
  }
  const profiles = await profilesOf(deps, tenant.full, request.profile);
  const files = objects.map(({ key }): JobFile => {
    const size = listed.get(key);
    const name = key.slice(root.length);
    if (size === undefined)
      throw new BadRequestError(`No object '${name}' under ${deps.blobs.describe(root)}`);
    checkSize(name, size);
    const profile = profileFor(profiles, name, request.profile);
    return { name, key, size, profile: profile.profile_name };
  });
  return register(deps, newJob(guarded, files, 'start'), true);
}
