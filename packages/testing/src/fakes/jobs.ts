/**
 * In-memory job store and schedules: the job store's conditional moves (slot, lease) hold as
 * the DynamoDB adapter's do; the schedules record what was created and removed, as EventBridge would hold it.
 */
import type { JobSchedules, JobStore, StoredJob, StoredRun } from '@tessera/jobs';

const key = (tenantId: string, jobId: string) => `${tenantId}\u0000${jobId}`;

export class InMemoryJobStore implements JobStore {
  readonly jobs = new Map<string, StoredJob>();

  async create(job: StoredJob) {
    if (this.jobs.has(key(job.tenant_id, job.job_id))) return false;
    this.jobs.set(key(job.tenant_id, job.job_id), structuredClone(job));
    return true;
  }

  async get(tenantId: string, jobId: string) {
    const job = this.jobs.get(key(tenantId, jobId));
    return job ? structuredClone(job) : undefined;
  }

  async list(tenantId: string) {
    return [...this.jobs.values()]
      .filter((job) => job.tenant_id === tenantId)
      .sort((a, b) => a.created_at - b.created_at || (a.job_id < b.job_id ? -1 : 1))
      .map((job) => structuredClone(job));
  }

  async remove(tenantId: string, jobId: string) {
    return this.jobs.delete(key(tenantId, jobId));
  }

  async due(now: number) {
    return [...this.jobs.values()].filter((job) => job.next_run <= now).map((job) => structuredClone(job));
  }

  async advance(tenantId: string, jobId: string, from: number, to: number) {
    const job = this.jobs.get(key(tenantId, jobId));
    if (!job || job.next_run !== from) return false;
    job.next_run = to;
    return true;
  }

  async startRun(tenantId: string, jobId: string, run: StoredRun, leaseUntil: number, now: number) {
    const job = this.jobs.get(key(tenantId, jobId));
    if (!job || !(job.lease_until < now)) return false;
    job.last_run = structuredClone(run);
    job.lease_until = leaseUntil;
    return true;
  }

  async finishRun(tenantId: string, jobId: string, run: StoredRun) {
    const job = this.jobs.get(key(tenantId, jobId));
    if (!job || job.last_run?.workflow_id !== run.workflow_id) return;
    job.last_run = structuredClone(run);
    job.lease_until = 0;
    job.run_count++;
  }
}

/** Schedules as EventBridge would hold them: a set of live schedule names, with every call recorded. */
export class RecordingSchedules implements JobSchedules {
  readonly live = new Map<string, StoredJob>();
  readonly calls: string[] = [];
  /** Makes the next create fail (a scheduler outage). */
  failNext = false;

  async create(job: StoredJob) {
    this.calls.push(`create ${job.job_id}`);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('scheduler unavailable');
    }
    this.live.set(job.job_id, structuredClone(job));
  }

  async remove(jobId: string) {
    this.calls.push(`remove ${jobId}`);
    this.live.delete(jobId);
  }
}
