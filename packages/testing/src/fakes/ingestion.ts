/**
 * In-memory blob store, job queue and job repository with the semantics of their AWS adapters: ranged
 * reads, presigned PUTs bound to their length, delayed messages, conditional job changes, leased slots.
 */
import { ConflictError } from '@tessera/core';
import {
  type BlobStore,
  type JobMessage,
  type JobQueue,
  type JobRecord,
  type JobRepository,
  type JobState,
  type SourceRecord,
  sourceKey,
} from '@tessera/ingestion';

const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryBlobStore implements BlobStore {
  readonly blobs = new Map<string, Uint8Array>();
  private readonly signed = new Map<
    string,
    { key: string; size: number; contentType?: string; until: number }
  >();

  constructor(
    readonly bucket = 'uploads',
    private readonly now: () => number = Date.now,
  ) {}

  describe(key: string): string {
    return `memory://${this.bucket}/${key}`;
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    this.blobs.set(key, body.slice());
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Uint8Array> {
    const blob = this.blobs.get(key);
    if (!blob)
      throw Object.assign(new Error(`The specified key does not exist: ${key}`), { name: 'NoSuchKey' });
    if (!range) return blob.slice();
    if (range.start >= blob.length && blob.length > 0)
      throw Object.assign(new Error(`The requested range is not satisfiable: ${key}`), {
        name: 'InvalidRange',
      });
    return blob.slice(range.start, Math.min(range.end, blob.length));
  }

  async exists(key: string): Promise<boolean> {
    return this.blobs.has(key);
  }

  async list(prefix: string): Promise<{ key: string; size: number }[]> {
    return [...this.blobs]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, blob]) => ({ key, size: blob.length }));
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) this.blobs.delete(key);
  }

  async presignPut(
    key: string,
    options: { size: number; contentType?: string; expiresSeconds: number },
  ): Promise<string> {
    const url = `memory://${this.bucket}/${encodeURI(key)}?signature=${this.signed.size + 1}`;
    this.signed.set(url, {
      key,
      size: options.size,
      contentType: options.contentType,
      until: this.now() + options.expiresSeconds * 1000,
    });
    return url;
  }

  /** A client's PUT to a presigned URL: stored when it is signed, unexpired and of the signed length and type. */
  async putPresigned(url: string, body: Uint8Array, headers: Record<string, string> = {}): Promise<boolean> {
    const signed = this.signed.get(url);
    if (!signed || signed.until <= this.now() || body.length !== signed.size) return false;
    if (signed.contentType !== undefined && headers['content-type'] !== signed.contentType) return false;
    await this.put(signed.key, body);
    return true;
  }
}

export class InMemoryJobQueue implements JobQueue {
  /** Every message sent, with its delay, in order. */
  readonly sent: { message: JobMessage; delaySeconds: number }[] = [];
  private waiting: { message: JobMessage; visibleAt: number }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  async send(message: JobMessage, delaySeconds = 0): Promise<void> {
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900)
      throw new Error(`Value ${delaySeconds} for parameter DelaySeconds is invalid: it must be 0 to 900`);
    this.sent.push({ message: copy(message), delaySeconds });
    this.waiting.push({ message: copy(message), visibleAt: this.now() + delaySeconds * 1000 });
  }

  /** The messages whose delay has passed, taken off the queue, in the order sent. */
  receive(): JobMessage[] {
    const now = this.now();
    const due = this.waiting.filter((entry) => entry.visibleAt <= now);
    this.waiting = this.waiting.filter((entry) => entry.visibleAt > now);
    return due.map((entry) => entry.message);
  }
}

const RUNNING: readonly JobState[] = ['queued', 'running'];

export class InMemoryJobRepository implements JobRepository {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly recorded = new Map<string, SourceRecord>();
  private readonly slots = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {}

  async create(job: JobRecord): Promise<void> {
    if (this.jobs.has(job.job_id)) throw new ConflictError(`Ingestion job ${job.job_id} already exists`);
    this.jobs.set(job.job_id, copy(job));
  }

  async get(jobId: string): Promise<JobRecord | undefined> {
    const job = this.jobs.get(jobId);
    return job && copy(job);
  }

  async state(jobId: string): Promise<JobState | undefined> {
    return this.jobs.get(jobId)?.state;
  }

  async claim(jobId: string): Promise<JobRecord | undefined> {
    const job = this.jobs.get(jobId);
    if (!job || !RUNNING.includes(job.state)) return undefined;
    job.state = 'running';
    job.updated_at = this.now();
    job.deliveries += 1;
    return copy(job);
  }

  async settle(jobId: string, state: JobState, fields: Partial<JobRecord>): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || !RUNNING.includes(job.state)) return false;
    for (const [name, value] of Object.entries(fields))
      if (value !== undefined) (job as unknown as Record<string, unknown>)[name] = copy(value);
    job.state = state;
    job.updated_at = this.now();
    return true;
  }

  async idle(idleMs: number): Promise<JobRecord[]> {
    const before = this.now() - idleMs;
    return [...this.jobs.values()]
      .filter((job) => RUNNING.includes(job.state) && job.updated_at <= before)
      .map(copy);
  }

  private static key = (tenantId: string, profile: string, name: string) =>
    `${tenantId}\u0000${sourceKey(profile, name)}`;

  async sources(
    tenantId: string,
    files: { profile: string; name: string }[],
  ): Promise<Map<string, SourceRecord>> {
    const found = new Map<string, SourceRecord>();
    for (const { profile, name } of files) {
      const record = this.recorded.get(InMemoryJobRepository.key(tenantId, profile, name));
      if (record) found.set(sourceKey(profile, name), copy(record));
    }
    return found;
  }

  async recordSources(
    tenantId: string,
    records: { profile: string; name: string; record: SourceRecord }[],
  ): Promise<void> {
    for (const { profile, name, record } of records)
      this.recorded.set(InMemoryJobRepository.key(tenantId, profile, name), copy(record));
  }

  async acquireSlot(tenantId: string, holder: string, max: number, leaseMs: number): Promise<boolean> {
    const now = this.now();
    const held = this.slots.get(tenantId) ?? new Map<string, number>();
    this.slots.set(tenantId, held);
    if (!held.has(holder) && held.size >= max) {
      // Slots whose holder died are taken back once their lease lapsed.
      for (const [other, until] of held) if (until <= now) held.delete(other);
      if (held.size >= max) return false;
    }
    held.set(holder, now + leaseMs);
    return true;
  }

  async releaseSlot(tenantId: string, holder: string): Promise<void> {
    this.slots.get(tenantId)?.delete(holder);
  }

  async tenantJobs(tenantId: string): Promise<JobRecord[]> {
    return [...this.jobs.values()].filter((job) => job.tenant_id === tenantId).map(copy);
  }

  async forgetTenant(tenantId: string): Promise<void> {
    for (const [jobId, job] of this.jobs) if (job.tenant_id === tenantId) this.jobs.delete(jobId);
    for (const key of this.recorded.keys())
      if (key.startsWith(`${tenantId}\u0000`)) this.recorded.delete(key);
    this.slots.delete(tenantId);
  }
}
