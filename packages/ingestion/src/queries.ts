/** A job's state and status entries, and waiting for a job to end. */
import type { Ingestion } from '@tessera/api';
import { NotFoundError } from '@tessera/core';
import type { IngestionDeps } from './deps';
import { type JobRecord, TERMINAL_STATES } from './model';
import { statusEntry } from './status';

export async function jobStatus(deps: IngestionDeps, jobId: string): Promise<Ingestion.JobStatus> {
  const job = await deps.jobs.get(jobId);
  if (!job) throw new NotFoundError(`No ingestion job found with ID ${jobId}`);
  const entries = [];
  for (let from = 0; ; ) {
    const events = await deps.events.read(jobId, from);
    entries.push(...events.map(statusEntry));
    if (events.length === 0) break;
    from = events.at(-1)!.offset + 1;
  }
  return {
    job_id: job.job_id,
    tenant_id: job.tenant_id,
    state: job.state,
    files: job.files.map((file) => ({ name: file.name, profile: file.profile, size: file.size })),
    deliveries: job.deliveries,
    result: job.result,
    error: job.error,
    error_type: job.error_type,
    reason: job.reason,
    entries,
  };
}

/** The job once it ended, or undefined when `timeoutMs` passed first. */
export async function waitForJob(
  deps: IngestionDeps,
  jobId: string,
  timeoutMs: number,
): Promise<JobRecord | undefined> {
  const deadline = Date.now() + timeoutMs;
  let pause = 25;
  for (;;) {
    const state = await deps.jobs.state(jobId);
    if (state && TERMINAL_STATES.includes(state)) return deps.jobs.get(jobId);
    if (Date.now() + pause > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 250);
  }
}
