/** The end of a job: its record settles once, and its task reports how it ended. */
import { log } from '@tessera/core';
import type { TaskReporter } from '@tessera/events';
import type { IngestionDeps } from './deps';
import type { JobRecord } from './model';

/** Ends the job once and reports how, through the attempt's reporter or, without one, on its task. */
export async function endJob(
  deps: Pick<IngestionDeps, 'jobs' | 'events'>,
  jobId: string,
  state: 'complete' | 'failed' | 'cancelled',
  fields: Partial<JobRecord>,
  event: Parameters<TaskReporter['report']>[0],
  reporter?: TaskReporter,
): Promise<void> {
  if (!(await deps.jobs.settle(jobId, state, fields))) return;
  if (reporter) {
    await reporter.report(event).finally(() => reporter.stop());
    return;
  }
  await deps.events.append(jobId, event).catch((error: unknown) => {
    // The task already ended (a stopped task's stream has closed): the job record still says how it ended.
    log.warn('could not report the end of an ingestion job', { job: jobId, error });
  });
}
