/**
 * What ingestion reaches storage through: the blobs uploads are kept in, the queue jobs run from, and the
 * records of jobs, of the sources they indexed and of each tenant's run slots.
 */
import type { JobMessage, JobRecord, JobState } from './model';

/** Uploaded files by key. */
export interface BlobStore {
  /** Where a key lives, for messages people read (`s3://<bucket>/<key>`). */
  describe(key: string): string;
  put(key: string, body: Uint8Array): Promise<void>;
  /** The bytes of a blob, or of its `[start, end)` range; fails for a key that holds nothing. */
  get(key: string, range?: { start: number; end: number }): Promise<Uint8Array>;
  exists(key: string): Promise<boolean>;
  /** Every blob under a prefix, with its size, in key order. */
  list(prefix: string): Promise<{ key: string; size: number }[]>;
  /** Removes blobs; keys that hold nothing are no error. */
  delete(keys: string[]): Promise<void>;
  /** A URL its holder PUTs exactly `size` bytes to (the store refuses any other length) until it expires. */
  presignPut(
    key: string,
    options: { size: number; contentType?: string; expiresSeconds: number },
  ): Promise<string>;
}

/** The queue workers take jobs from. */
export interface JobQueue {
  /** Queues a job's message, delivered no sooner than `delaySeconds` (0 to 900) from now. */
  send(message: JobMessage, delaySeconds?: number): Promise<void>;
}

/** What a source (a file, per tenant and profile) was last indexed from. */
export interface SourceRecord {
  content_hash: string;
  job_id: string;
  chunks: number;
  updated_at: number;
}

/** A source's key among a tenant's recorded sources. */
export const sourceKey = (profile: string, name: string) => `${profile}|${name}`;

/**
 * Job records, per-source content hashes and per-tenant run slots. Every change of a job is conditional on
 * its state, so redelivered messages and concurrent workers cannot move a job backwards.
 */
export interface JobRepository {
  /** Stores a new job; 409 when its id exists. */
  create(job: JobRecord): Promise<void>;
  get(jobId: string): Promise<JobRecord | undefined>;
  /** Only the job's state: cheap to poll, however many files the job holds. */
  state(jobId: string): Promise<JobState | undefined>;
  /** A worker takes the job up: `running`, one more delivery. Undefined when the job has already ended. */
  claim(jobId: string): Promise<JobRecord | undefined>;
  /** Ends the job once, setting `fields`; false when it had already ended. */
  settle(jobId: string, state: JobState, fields: Partial<JobRecord>): Promise<boolean>;
  /** Jobs not ended whose last change is older than `idleMs`: their messages may be gone. */
  idle(idleMs: number): Promise<JobRecord[]>;
  /** The recorded content of each named source of the tenant, by `sourceKey(profile, name)`. */
  sources(tenantId: string, files: { profile: string; name: string }[]): Promise<Map<string, SourceRecord>>;
  recordSources(
    tenantId: string,
    records: { profile: string; name: string; record: SourceRecord }[],
  ): Promise<void>;
  /**
   * Takes one of the tenant's `max` run slots for `holder`, held until `leaseMs` from now (a crashed
   * worker's slot frees itself). True when it holds one (asking again keeps it); false when every slot is
   * held by another live holder.
   */
  acquireSlot(tenantId: string, holder: string, max: number, leaseMs: number): Promise<boolean>;
  releaseSlot(tenantId: string, holder: string): Promise<void>;
  /** Every job of the tenant, ended or not. */
  tenantJobs(tenantId: string): Promise<JobRecord[]>;
  /** Removes the tenant's job records, source records and run slots (it is deleted). */
  forgetTenant(tenantId: string): Promise<void>;
}

/**
 * Runs a job in the media worker: a container with ffmpeg and the media models, without a function's time
 * limit (an ECS task on Fargate in AWS). The worker takes the job up as any worker does, by its lease.
 */
export interface MediaTaskLauncher {
  readonly name: string;
  /** Starts the worker on the job; answers the task's id (its ARN). */
  launch(jobId: string): Promise<string>;
}
