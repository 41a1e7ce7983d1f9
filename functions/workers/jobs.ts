/**
 * Scheduled jobs: `runJob` is the job-run function an EventBridge Scheduler schedule invokes (input
 * `{tenant_id, job_id, scheduled_for}`); `fireDue` is the local runtime's ticker, which fires due jobs from
 * the store every half second where no EventBridge Scheduler runs them.
 */
import { log } from '@tessera/core';
import { fireDueJobs, jobs, runJob as run } from '@tessera/jobs';

const deps = jobs();
/** When this process began: slots before it fell while no ticker ran, and are not replayed. */
const startedAt = Date.now();

export interface JobRunEvent {
  tenant_id: string;
  job_id: string;
  /** ISO 8601 (EventBridge Scheduler's `<aws.scheduler.scheduled-time>`). */
  scheduled_for?: string;
}

export const runJob = async (event: JobRunEvent) => {
  const scheduled = event.scheduled_for ? Date.parse(event.scheduled_for) : Number.NaN;
  const outcome = await run(deps, {
    tenant_id: event.tenant_id,
    job_id: event.job_id,
    ...(Number.isFinite(scheduled) ? { scheduled_for: scheduled } : {}),
  });
  log.info('scheduled job run', { tenant: event.tenant_id, job: event.job_id, ...outcome });
  return outcome;
};

/** One tick: fires the due jobs and answers without waiting for their runs. */
export const fireDue = async () => {
  const tick = await fireDueJobs(deps, startedAt);
  return { fired: tick.fired.length, missed: tick.missed.length };
};
