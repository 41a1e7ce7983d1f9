/**
 * A job's runs: one workflow task each through the job's agent, its post actions (the answer saved to the
 * wiki, or queued for the tenant's linked chats), never two at once (the job's lease), and the local ticker
 * that fires due jobs from the store (in AWS, EventBridge Scheduler invokes `runJob` instead).
 */
import { log } from '@tessera/core';
import { newWorkflowId, runWorkflow } from '@tessera/events';
import { queueForTenant } from '@tessera/messaging/outbound';
import { answerText, saveSession } from '@tessera/wiki';
import type { JobsDeps } from './deps';
import { nextSlot } from './schedule';
import type { StoredJob, StoredRun } from './store';

export interface RunRequest {
  tenant_id: string;
  job_id: string;
  /** The slot the run is for (epoch ms); default now. */
  scheduled_for?: number;
}

export interface RunOutcome {
  status: 'completed' | 'failed' | 'skipped' | 'missing';
  workflow_id?: string;
  error?: string;
}

/** Characters of an answer a queued message carries. */
const MESSAGE_CHARS = 3500;

async function postActions(deps: JobsDeps, job: StoredJob, result: Record<string, unknown>): Promise<void> {
  for (const action of job.post_actions) {
    if (action.type === 'wiki') {
      const answer = answerText(result);
      await saveSession(deps.wiki, job.tenant_id, {
        query: job.query,
        response: result,
        entities: await deps.tag(`${job.query}\n\n${answer}`.slice(0, 20_000)),
        agent_name: job.agent_name,
      });
    } else {
      const text = `Job '${job.name}': ${answerText(result)}`;
      await queueForTenant(
        deps,
        job.tenant_id,
        text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS - 1)}…` : text,
        `job:${job.job_id}`,
      );
    }
  }
}

/**
 * Runs the job once (the job-run function's work): skipped while another run of it holds the job, and a
 * job that no longer exists takes its stray schedule away. Never throws for the run's own failure: that is
 * the run's ErrorEvent and its `last_run`, and the next slot runs as usual.
 */
export async function runJob(deps: JobsDeps, request: RunRequest): Promise<RunOutcome> {
  const now = deps.now();
  const job = await deps.store.get(request.tenant_id, request.job_id);
  if (!job) {
    await deps.schedules.remove(request.job_id).catch(() => undefined);
    log.warn('scheduled job not found; its schedule is removed', { ...request });
    return { status: 'missing' };
  }
  const workflowId = newWorkflowId();
  const run: StoredRun = {
    workflow_id: workflowId,
    state: 'running',
    scheduled_for: request.scheduled_for ?? now,
    started_at: now,
    finished_at: null,
    error: null,
  };
  if (!(await deps.store.startRun(job.tenant_id, job.job_id, run, now + deps.leaseMs, now))) {
    log.warn('scheduled job skipped: its previous run still runs', {
      tenant: job.tenant_id,
      job: job.job_id,
    });
    return { status: 'skipped' };
  }
  // Invoked by a schedule (not the ticker, which moved it already): the job shows its next slot.
  if (job.next_run <= now) {
    await deps.store.advance(
      job.tenant_id,
      job.job_id,
      job.next_run,
      nextSlot(job.schedule, job.timezone, job.created_at, now),
    );
  }
  let error: string | null = null;
  try {
    const outcome = await runWorkflow(
      deps.events,
      { agent: job.agent_name, tenantId: job.tenant_id, workflowId },
      async (reporter) => {
        await reporter.phase('agent', `Job ${job.name}: ${job.agent_name}`);
        const result = await deps.runAgent(job.agent_name, job.query, job.tenant_id, reporter);
        if (job.post_actions.length > 0) {
          await reporter.phase('post_actions', job.post_actions.map((a) => a.type).join(', '));
          await postActions(deps, job, result);
        }
        return { status: 'completed' as const, agent: job.agent_name, job_id: job.job_id, result };
      },
    );
    if (outcome.status === 'cancelled' && 'message' in outcome) error = outcome.message;
  } catch (failure) {
    error = (failure as Error).message || String(failure);
    log.warn('scheduled job run failed', { tenant: job.tenant_id, job: job.job_id, workflowId, error });
  }
  const finished: StoredRun = {
    ...run,
    state: error ? 'failed' : 'completed',
    finished_at: deps.now(),
    error,
  };
  await deps.store.finishRun(job.tenant_id, job.job_id, finished);
  return {
    status: finished.state as 'completed' | 'failed',
    workflow_id: workflowId,
    ...(error ? { error } : {}),
  };
}

export interface TickOutcome {
  fired: { tenant_id: string; job_id: string; scheduled_for: number }[];
  /** Slots that fell while no ticker ran (before `startedAt`): not replayed. */
  missed: { tenant_id: string; job_id: string; scheduled_for: number }[];
  /** Settles when every run this tick started has ended. */
  runs: Promise<RunOutcome[]>;
}

/**
 * The local scheduler's tick: every job whose slot is due moves to its next slot (a conditional write, so one
 * process fires each slot) and runs, without the tick waiting for it. A slot from before `startedAt` (the
 * runtime was down) is moved past without a run.
 */
export async function fireDueJobs(deps: JobsDeps, startedAt: number): Promise<TickOutcome> {
  const now = deps.now();
  const outcome: TickOutcome = { fired: [], missed: [], runs: Promise.resolve([]) };
  const runs: Promise<RunOutcome>[] = [];
  // Every due job at once: one slow write does not make the others late.
  await Promise.all(
    (await deps.store.due(now)).map(async (job) => {
      const slot = job.next_run;
      const next = nextSlot(job.schedule, job.timezone, job.created_at, Math.max(now, slot));
      if (!(await deps.store.advance(job.tenant_id, job.job_id, slot, next))) return;
      const entry = { tenant_id: job.tenant_id, job_id: job.job_id, scheduled_for: slot };
      if (slot < startedAt) {
        outcome.missed.push(entry);
        log.info('scheduled job slot missed while the runtime was down; not replayed', {
          tenant: job.tenant_id,
          job: job.job_id,
          slot: new Date(slot).toISOString(),
        });
        return;
      }
      outcome.fired.push(entry);
      runs.push(
        runJob(deps, entry).catch((error: unknown) => {
          log.error('scheduled job run could not be recorded', { ...entry, error });
          return { status: 'failed' as const, error: (error as Error).message };
        }),
      );
    }),
  );
  outcome.runs = Promise.all(runs);
  return outcome;
}
