/** Producers over the task event port (its in-memory fake): leases, cancel tokens, workflow outcomes. */
import { HttpError } from '@tessera/core';
import { InMemoryTaskEvents } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import { runWorkflow, TaskReporter } from '../src/index';

const store = new InMemoryTaskEvents();
let counter = 0;
const id = (prefix = 'task') => `${prefix}_${Date.now().toString(36)}_${counter++}`;

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, detail: error.detail };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('TaskReporter', () => {
  it('keeps its lease alive and turns a recorded cancellation into a cancel token', async () => {
    const reporter = await TaskReporter.open(store, {
      taskId: id(),
      kind: 'workflow',
      tenantId: 'acme:acme',
      leaseMs: 200,
      pollMs: 10,
    });
    // Past the lease's length: only renewals keep the task active.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const record = (await store.get(reporter.taskId))!;
    expect(store.condition(record)).toBe('active');
    await store.cancel(reporter.taskId, 'workflow', 'stop now');
    for (let waited = 0; !reporter.cancelled && waited < 2000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(reporter.cancelled).toBe(true);
    await expect(reporter.phase('execution')).rejects.toThrow('cancelled: stop now');
    reporter.stop();
  });

  it('leaves a task stopped when its producer dies without finishing', async () => {
    const reporter = await TaskReporter.open(store, {
      taskId: id(),
      kind: 'workflow',
      tenantId: 'acme:acme',
      leaseMs: 50,
      pollMs: 10,
    });
    reporter.stop();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(store.condition((await store.get(reporter.taskId))!)).toBe('stopped');
    expect((await store.active('acme:acme')).some((t) => t.task_id === reporter.taskId)).toBe(false);
  });
});

describe('runWorkflow', () => {
  it('reports a returning run with a complete event', async () => {
    const result = await runWorkflow(
      store,
      { agent: 'search_agent', tenantId: 'acme:acme', workflowId: id('wf') },
      async (reporter) => {
        await reporter.phase('planning');
        return { status: 'completed', answer: 42 };
      },
    );
    expect(result).toEqual({ status: 'completed', answer: 42 });
  });

  it('generates workflow_<hex> ids, refuses a taken one, and reports cancels and failures', async () => {
    let seen = '';
    await runWorkflow(store, { agent: 'a', tenantId: 'acme:acme' }, async (reporter) => {
      seen = reporter.taskId;
      return {};
    });
    expect(seen).toMatch(/^workflow_[0-9a-f]{16}$/);
    expect(
      (
        await failure(
          runWorkflow(store, { agent: 'a', tenantId: 'acme:acme', workflowId: seen }, async () => ({})),
        )
      ).status,
    ).toBe(409);

    const cancelledId = id('wf');
    const cancelled = await runWorkflow(
      store,
      { agent: 'research', tenantId: 'acme:acme', workflowId: cancelledId },
      async (reporter) => {
        await store.cancel(cancelledId, 'workflow', 'user pressed stop');
        await reporter.phase('retrieval_iteration');
        return {};
      },
    );
    expect(cancelled).toEqual({
      status: 'cancelled',
      agent: 'research',
      workflow_id: cancelledId,
      message: `Workflow ${cancelledId} was cancelled: user pressed stop`,
    });
    expect((await store.read(cancelledId, 0)).at(-1)).toMatchObject({
      type: 'status',
      state: 'cancelled',
      message: 'user pressed stop',
    });

    const failedId = id('wf');
    class PlannerError extends Error {
      override name = 'PlannerError';
    }
    await expect(
      runWorkflow(store, { agent: 'orchestrator', tenantId: 'acme:acme', workflowId: failedId }, async () => {
        throw new PlannerError('no plan');
      }),
    ).rejects.toThrow('no plan');
    expect((await store.read(failedId, 0)).at(-1)).toMatchObject({
      type: 'error',
      error_message: 'orchestrator failed with PlannerError',
      recoverable: false,
    });
  });
});
