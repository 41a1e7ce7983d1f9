/**
 * The producer side of a task: it holds the task's lease, renewed at half its length by a poller ticking
 * every 0.5 s that also turns a recorded cancellation into a cancel token, and reports events.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { HttpError, log } from '@tessera/core';
import type { EventBody, TaskKind } from './model';
import { PRODUCER_LEASE_MS, type TaskEvents } from './task-events';

export class TaskCancelledError extends Error {
  constructor(readonly reason: string) {
    super(`cancelled: ${reason}`);
    this.name = 'TaskCancelledError';
  }
}

export interface ReporterOptions {
  taskId: string;
  kind: TaskKind;
  tenantId: string;
  leaseMs?: number;
  pollMs?: number;
}

export class TaskReporter {
  private cancelReason: string | undefined;
  private readonly cancelling = new AbortController();
  private lost = false;
  private timer: NodeJS.Timeout | undefined;
  private lastRenewal = Date.now();
  private readonly owner = randomUUID();

  private constructor(
    private readonly store: TaskEvents,
    readonly taskId: string,
    private readonly leaseMs: number,
    pollMs: number,
  ) {
    this.timer = setInterval(() => void this.tick(), pollMs);
    this.timer.unref();
  }

  /** Registers the task (409 if the id exists) and starts holding its lease. */
  static async open(store: TaskEvents, options: ReporterOptions): Promise<TaskReporter> {
    const leaseMs = options.leaseMs ?? PRODUCER_LEASE_MS;
    const reporter = new TaskReporter(store, options.taskId, leaseMs, options.pollMs ?? 500);
    try {
      await store.open({
        task_id: options.taskId,
        kind: options.kind,
        tenant_id: options.tenantId,
        owner: reporter.owner,
        leaseMs,
      });
    } catch (error) {
      reporter.stop();
      throw error;
    }
    return reporter;
  }

  /**
   * Takes over an existing task's lease (a worker claiming a queued ingestion job that waited under
   * `from`); undefined when another live producer holds it or the task ended.
   */
  static async attach(
    store: TaskEvents,
    options: { taskId: string; from: string; leaseMs?: number; pollMs?: number },
  ): Promise<TaskReporter | undefined> {
    const leaseMs = options.leaseMs ?? PRODUCER_LEASE_MS;
    const reporter = new TaskReporter(store, options.taskId, leaseMs, options.pollMs ?? 500);
    const state = await store
      .takeOver(options.taskId, options.from, reporter.owner, leaseMs)
      .catch((error) => {
        reporter.stop();
        throw error;
      });
    if (!state) {
      reporter.stop();
      return undefined;
    }
    if (state.cancelled) reporter.noteCancel(state.reason);
    return reporter;
  }

  private async tick(): Promise<void> {
    if (Date.now() - this.lastRenewal < this.leaseMs / 2 && this.cancelReason !== undefined) return;
    try {
      const renewDue = Date.now() - this.lastRenewal >= this.leaseMs / 2;
      const state = renewDue
        ? await this.store.renew(this.taskId, this.owner, this.leaseMs)
        : await this.peek();
      if (renewDue) this.lastRenewal = Date.now();
      if (!state) {
        this.lost = true;
        this.stop();
        return;
      }
      if (state.cancelled) this.noteCancel(state.reason);
    } catch (error) {
      log.warn('task lease poll failed', { task: this.taskId, error });
    }
  }

  private async peek(): Promise<{ cancelled: boolean; reason?: string } | undefined> {
    const record = await this.store.get(this.taskId);
    if (!record || record.ended) return undefined;
    return { cancelled: record.cancel_requested, reason: record.cancel_reason };
  }

  private noteCancel(reason: string | undefined): void {
    if (this.cancelReason !== undefined) return;
    this.cancelReason = reason ?? 'cancelled';
    this.cancelling.abort();
  }

  get cancelled(): boolean {
    return this.cancelReason !== undefined;
  }

  /** Aborts once a cancellation of the task is seen (by a poll of the lease, or an event's answer). */
  get cancelSignal(): AbortSignal {
    return this.cancelling.signal;
  }

  get reason(): string | undefined {
    return this.cancelReason;
  }

  /** Reports an event; its answer carries the cancellation too. */
  async report(body: EventBody): Promise<number> {
    const { offset, cancelled, reason } = await this.store.append(this.taskId, body);
    if (cancelled) this.noteCancel(reason);
    return offset;
  }

  /** A phase boundary: reports the phase, then stops the run if a cancellation was recorded. */
  async phase(phase: string, message?: string): Promise<void> {
    await this.report({ type: 'status', state: 'working', phase, message });
    if (this.cancelReason !== undefined) throw new TaskCancelledError(this.cancelReason);
  }

  async complete(
    result: Record<string, unknown>,
    summary?: string,
    executionSeconds?: number,
  ): Promise<void> {
    await this.finish({ type: 'complete', result, summary, execution_time_seconds: executionSeconds });
  }

  async fail(errorType: string, message: string): Promise<void> {
    await this.finish({ type: 'error', error_type: errorType, error_message: message, recoverable: false });
  }

  async reportCancelled(reason: string): Promise<void> {
    await this.finish({ type: 'status', state: 'cancelled', message: reason });
  }

  private async finish(body: EventBody): Promise<void> {
    try {
      await this.report(body);
    } finally {
      this.stop();
    }
  }

  /**
   * Hands the lease to `owner` for `leaseMs` and stops holding it: a worker giving a job back to the queue,
   * so the next delivery can take it over at once instead of waiting for this lease to lapse.
   */
  async handBack(owner: string, leaseMs: number): Promise<void> {
    this.stop();
    await this.store.takeOver(this.taskId, this.owner, owner, leaseMs);
  }

  /** Stops holding the lease without ending the task: it then counts as stopped once the lease lapses. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  get leaseLost(): boolean {
    return this.lost;
  }
}

/** `workflow_<hex>` when the context names no workflow id. */
export const newWorkflowId = () => `workflow_${randomBytes(8).toString('hex')}`;

export interface WorkflowRun {
  agent: string;
  tenantId: string;
  workflowId?: string;
  /** The request running the workflow; when it ends first, the run is reported cancelled. */
  signal?: AbortSignal;
  /** The workflow that started this one (a gateway run's orchestration): a cancel of it cancels this one. */
  parent?: TaskReporter;
}

/**
 * The dispatcher's reporting of one workflow run (document 3, "Run outcome"): returns → complete event;
 * stops on cancel → cancelled status and a cancelled result; raises → error event, and the error propagates.
 */
export async function runWorkflow<T extends Record<string, unknown>>(
  store: TaskEvents,
  run: WorkflowRun,
  body: (reporter: TaskReporter) => Promise<T>,
): Promise<T | { status: 'cancelled'; agent: string; workflow_id: string; message: string }> {
  const workflowId = run.workflowId ?? newWorkflowId();
  const reporter = await TaskReporter.open(store, {
    taskId: workflowId,
    kind: 'workflow',
    tenantId: run.tenantId,
  });
  await reporter.report({ type: 'status', state: 'working', phase: 'started' });
  const parent = run.parent;
  const cancelWithParent = () => {
    const reason = `its parent workflow ${parent!.taskId} was cancelled: ${parent!.reason}`;
    store.cancel(workflowId, 'workflow', reason).catch((error: unknown) => {
      log.warn('could not cancel a workflow with its parent', { workflow: workflowId, error });
    });
  };
  if (parent?.cancelled) cancelWithParent();
  else parent?.cancelSignal.addEventListener('abort', cancelWithParent, { once: true });
  const aborted = new Promise<'aborted'>((resolve) =>
    run.signal?.addEventListener('abort', () => resolve('aborted'), { once: true }),
  );
  try {
    const outcome = await Promise.race([body(reporter), aborted]);
    if (outcome === 'aborted') {
      await reporter.reportCancelled(`The request running workflow ${workflowId} ended before it finished`);
      return {
        status: 'cancelled',
        agent: run.agent,
        workflow_id: workflowId,
        message: `Workflow ${workflowId} was cancelled: the request ended`,
      };
    }
    const status = typeof outcome.status === 'string' ? outcome.status : 'completed';
    await reporter.complete({ status }, `${run.agent} finished with status ${status}`);
    return outcome;
  } catch (error) {
    if (error instanceof TaskCancelledError) {
      await reporter.reportCancelled(error.reason);
      return {
        status: 'cancelled',
        agent: run.agent,
        workflow_id: workflowId,
        message: `Workflow ${workflowId} was cancelled: ${error.reason}`,
      };
    }
    const type = error instanceof HttpError ? error.name : error instanceof Error ? error.name : 'Error';
    await reporter.fail(type, `${run.agent} failed with ${type}`).catch(() => undefined);
    throw error;
  } finally {
    parent?.cancelSignal.removeEventListener('abort', cancelWithParent);
    reporter.stop();
  }
}
