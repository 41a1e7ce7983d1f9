/**
 * One attempt at a job: it runs unless the job ended, was cancelled while queued, or must wait for a
 * tenant slot or for another worker's lease on its task; it holds a slot and the task's lease meanwhile,
 * and hands the job back to the queue when it fails or runs out of time.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, log, withDeadline } from '@tessera/core';
import {
  PRODUCER_LEASE_MS,
  producerWorking,
  QUEUED_INGESTION_LEASE_MS,
  type TaskRecord,
  TaskReporter,
} from '@tessera/events';
import { ingestionSlots } from '@tessera/provisioning/quotas';
import { telemetry } from '@tessera/telemetry';
import type { IngestionDeps } from './deps';
import { ingestionEnv } from './env';
import { HandOffError } from './errors';
import { type JobRecord, TERMINAL_STATES } from './model';
import { endJob } from './settle';
import { enqueueJob } from './submit';
import { runWindows } from './windows';

/**
 * A running job's tenant slot is leased as its task is, and renewed as often: a worker that dies frees its
 * slot within one lease, like its task (a 15-minute slot lease froze a tenant's ingestion after a crash).
 */
export const SLOT_LEASE_MS = PRODUCER_LEASE_MS;
const SLOT_RENEW_MS = SLOT_LEASE_MS / 3;

/** An attempt gives up this long (at most a tenth of its time) before its function's time runs out. */
const ATTEMPT_MARGIN_MS = 30_000;

/** The time an attempt may take, of the time its function has left. */
export function attemptTime(remainingMs: number | undefined): number | undefined {
  return remainingMs === undefined ? undefined : remainingMs - Math.min(ATTEMPT_MARGIN_MS, remainingMs / 10);
}

/**
 * Runs one job unless it has ended, is cancelled, or must wait for a tenant slot or a live producer. An
 * attempt still working after `timeMs` hands the job back and fails, so the message is delivered again.
 */
export async function runJob(deps: IngestionDeps, jobId: string, timeMs?: number): Promise<void> {
  const job = await deps.jobs.get(jobId);
  if (!job) {
    log.warn('queue message for an unknown ingestion job', { job: jobId });
    return;
  }
  if (TERMINAL_STATES.includes(job.state)) return;
  const task = await taskOf(deps, job);
  // A cancelled job nobody works ends without running: one still queued, or one whose worker died or gave
  // it back (its cancel was recorded while it was interrupted).
  if (task.cancel_requested && (job.state === 'queued' || !producerWorking(deps.events, task))) {
    const reason = task.cancel_reason ?? 'cancelled';
    await endJob(
      deps,
      jobId,
      'cancelled',
      { reason },
      { type: 'status', state: 'cancelled', message: reason },
    );
    return;
  }
  // A holder of its own per attempt: a duplicate delivery must not free the slot of the attempt running.
  const holder = `${jobId}#${randomUUID()}`;
  // The tenant's cpu_quota, when provisioning set one, is its number of slots.
  const slots = deps.quotas
    ? await ingestionSlots(deps.quotas, job.tenant_id, ingestionEnv.tenantSlots)
    : ingestionEnv.tenantSlots;
  const takeSlot = () => deps.jobs.acquireSlot(job.tenant_id, holder, slots, SLOT_LEASE_MS);
  if (!(await takeSlot())) {
    // Every slot of the tenant is busy: back on the queue (a new message, so waiting burns no deliveries).
    await enqueueJob(deps, jobId, ingestionEnv.slotRetrySeconds);
    return;
  }
  // Asking again for a slot it holds renews its lease.
  const heartbeat = setInterval(() => {
    takeSlot().then(
      (held) => {
        if (!held) log.warn('an ingestion job lost its tenant slot while it ran', { job: jobId });
      },
      (error: unknown) =>
        log.warn('could not renew the tenant slot of an ingestion job', { job: jobId, error }),
    );
  }, SLOT_RENEW_MS);
  heartbeat.unref();
  try {
    const reporter = await TaskReporter.attach(deps.events, { taskId: jobId, from: jobId });
    if (!reporter) {
      // Another worker holds the job's lease (a duplicate delivery, or one that died): look again once that
      // lease could have lapsed; waiting on a new message burns none of this one's deliveries.
      const leased = await deps.events.get(jobId);
      if (!leased || leased.ended) return;
      const seconds = Math.ceil((leased.lease_expires_at - Date.now()) / 1000) + 1;
      await enqueueJob(deps, jobId, Math.min(900, Math.max(1, seconds)));
      return;
    }
    const claimed = await deps.jobs.claim(jobId);
    if (!claimed) {
      reporter.stop();
      return;
    }
    try {
      const deadline = timeMs === undefined ? undefined : Date.now() + timeMs;
      const attempt = telemetry().span(
        claimed.tenant_id,
        'ingestion.job',
        { kind: 'consumer', attributes: { 'tessera.job_id': jobId, 'tessera.files': claimed.files.length } },
        async (scope) => {
          scope.detail({ 'tessera.profiles': [...new Set(claimed.files.map((file) => file.profile))] });
          await runWindows(deps, claimed, reporter, deadline);
        },
      );
      await (timeMs === undefined
        ? attempt
        : withDeadline(
            attempt,
            timeMs,
            () =>
              new Error(
                `Ingestion job ${jobId} did not finish within its attempt's ${Math.round(timeMs / 1000)} s`,
              ),
          ));
    } catch (error) {
      if (error instanceof HandOffError && deps.mediaTasks) {
        await handOff(deps.mediaTasks, jobId, reporter, error);
        return;
      }
      // The job goes back to the queue: its lease returns to the job (as while it was queued), so the
      // redelivery takes it up at once; the task stays open.
      await reporter.handBack(jobId, QUEUED_INGESTION_LEASE_MS).catch(() => undefined);
      throw error;
    }
  } finally {
    clearInterval(heartbeat);
    await deps.jobs.releaseSlot(job.tenant_id, holder);
  }
}

/**
 * The job's task; opened now (queued, as at submit) when a submit stored the job but died before opening
 * it, so the job still runs rather than waiting for a task that never comes.
 */
async function taskOf(deps: IngestionDeps, job: JobRecord): Promise<TaskRecord> {
  const task = await deps.events.get(job.job_id);
  if (task) return task;
  try {
    return await deps.events.open({
      task_id: job.job_id,
      kind: 'ingestion',
      tenant_id: job.tenant_id,
      owner: job.job_id,
      leaseMs: QUEUED_INGESTION_LEASE_MS,
      resumable: true,
    });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    return (await deps.events.get(job.job_id)) ?? Promise.reject(error);
  }
}

/**
 * Gives the job to the media worker: the task's lease goes back to the job (as while it was queued), the
 * worker is started on it, and it takes the job up by that lease as any worker would; this message is done.
 * Files already indexed are recorded by hash and reported there as indexed without running again.
 */
async function handOff(
  launcher: NonNullable<IngestionDeps['mediaTasks']>,
  jobId: string,
  reporter: TaskReporter,
  error: HandOffError,
): Promise<void> {
  await reporter.report({ type: 'status', state: 'working', phase: 'handed_off', message: error.reason });
  await reporter.handBack(jobId, QUEUED_INGESTION_LEASE_MS);
  const task = await launcher.launch(jobId);
  log.info('ingestion job handed to the media worker', { job: jobId, task, reason: error.reason });
}
