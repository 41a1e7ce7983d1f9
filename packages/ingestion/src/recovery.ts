/**
 * Jobs whose queue message is gone (an emulator that keeps messages in memory restarted, a message
 * dropped by hand) would wait forever: jobs idle longer than `idleMs` are queued again, presigned ones once
 * their object has arrived. A duplicate message is harmless: the worker acknowledges messages of ended jobs
 * and waits out a live worker's lease.
 */
import type { IngestionDeps } from './deps';
import { enqueueJob } from './submit';

export async function recoverIdleJobs(deps: IngestionDeps, idleMs: number): Promise<string[]> {
  const requeued: string[] = [];
  for (const job of await deps.jobs.idle(idleMs)) {
    if (job.origin === 'presigned' && !(await deps.blobs.exists(job.files[0]!.key))) continue;
    await enqueueJob(deps, job.job_id);
    requeued.push(job.job_id);
  }
  return requeued;
}
