import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HttpError } from '@tessera/core';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { dynamoClient } from '@tessera/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoTaskEvents, runWorkflow, TaskReporter } from '../src/index';

let emulators: Emulators;
const clock = { offset: 0 };
let store: DynamoTaskEvents;
let counter = 0;
const id = (prefix = 'task') => `${prefix}_${Date.now().toString(36)}_${counter++}`;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'events-')));
  store = new DynamoTaskEvents(undefined, () => Date.now() + clock.offset);
});

afterAll(async () => {
  await emulators?.stop();
});

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, detail: error.detail };
    throw error;
  }
  throw new Error('expected a failure');
}

const open = (
  taskId: string,
  kind: 'workflow' | 'ingestion' = 'workflow',
  tenant = 'acme:acme',
  leaseMs = 30_000,
) => store.open({ task_id: taskId, kind, tenant_id: tenant, owner: 'test', leaseMs });

describe('TaskEventStore', () => {
  it('never reuses a task id', async () => {
    const taskId = id();
    await open(taskId);
    expect(await failure(open(taskId))).toEqual({ status: 409, detail: `Task ${taskId} already exists` });
  });

  it('gives concurrent appenders distinct offsets and replays events identically', async () => {
    const taskId = id();
    await open(taskId);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.append(taskId, { type: 'progress', current: i, total: 20, percentage: i * 5, details: {} }),
      ),
    );
    expect(results.map((r) => r.offset).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    const first = await store.read(taskId, 0);
    expect(first).toHaveLength(20);
    expect(first[3]).toMatchObject({ task_id: taskId, tenant_id: 'acme:acme', offset: 3, type: 'progress' });
    expect(first[3]!.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await store.read(taskId, 0)).toEqual(first);
    expect((await store.read(taskId, 15)).map((e) => e.offset)).toEqual([15, 16, 17, 18, 19]);
  });

  it('gives two stores appending to one task at once distinct offsets and no holes', async () => {
    // A second client and store stand for a second process sharing the task.
    const other = new DynamoTaskEvents(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
      () => Date.now() + clock.offset,
      new DynamoDBClient({ region: 'us-east-1', cacheMiddleware: true }),
    );
    const taskId = id();
    await open(taskId);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? other : store).append(taskId, {
          type: 'progress',
          current: i,
          total: 40,
          percentage: 0,
          details: {},
        }),
      ),
    );
    const offsets = Array.from({ length: 40 }, (_, i) => i);
    expect(results.map((r) => r.offset).sort((a, b) => a - b)).toEqual(offsets);
    const stored = await store.read(taskId, 0);
    expect(stored.map((e) => e.offset)).toEqual(offsets);
    expect(stored).toEqual(results.map((r) => r.event).sort((a, b) => a.offset - b.offset));
    expect((await store.info(taskId)).event_count).toBe(40);
  });

  it('gives the appends made to one task while its offset update is in flight the next offsets, in order, with one update', async () => {
    const updates: string[] = [];
    const client = dynamoClient();
    const counting = {
      send: (command: Parameters<typeof client.send>[0]) => {
        if (
          command instanceof UpdateItemCommand &&
          command.input.UpdateExpression?.startsWith('ADD next_offset')
        )
          updates.push(String(command.input.ExpressionAttributeValues?.[':count']?.N));
        return client.send(command);
      },
    } as DynamoDBClient;
    const counted = new DynamoTaskEvents(undefined, undefined, counting);
    const taskId = id();
    await open(taskId);
    await store.cancel(taskId, 'workflow', 'stop soon');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        counted.append(taskId, { type: 'progress', current: i, total: 20, percentage: 0, details: {} }),
      ),
    );
    // The first goes alone; the 19 made while it was in flight take theirs together.
    expect(updates).toEqual(['1', '19']);
    expect(results.map((r) => [r.offset, r.cancelled, r.reason])).toEqual(
      Array.from({ length: 20 }, (_, i) => [i, true, 'stop soon']),
    );
    expect((await store.read(taskId, 0)).map((e) => e.type === 'progress' && e.current)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  it('refuses the appends made after a terminal one while they waited for its offset update', async () => {
    const taskId = id();
    await open(taskId);
    const outcomes = await Promise.allSettled([
      store.append(taskId, { type: 'status', state: 'working', phase: 'one' }),
      store.append(taskId, { type: 'status', state: 'working', phase: 'two' }),
      store.append(taskId, { type: 'complete', result: {} }),
      store.append(taskId, { type: 'status', state: 'working', phase: 'late' }),
    ]);
    expect(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value.offset : (o.reason as HttpError).status)),
    ).toEqual([0, 1, 2, 409]);
    expect((await store.read(taskId, 0)).map((e) => e.type)).toEqual(['status', 'status', 'complete']);
  });

  it('stores the events of many tasks appended at once, each answering its own task cancellation', async () => {
    const tasks = Array.from({ length: 30 }, () => id());
    await Promise.all(tasks.map((taskId) => open(taskId)));
    await store.cancel(tasks[7]!, 'workflow', 'only this one');
    const results = await Promise.all(
      tasks.map((taskId) => store.append(taskId, { type: 'status', state: 'working', phase: taskId })),
    );
    expect(results.map((r) => [r.offset, r.cancelled, r.reason])).toEqual(
      tasks.map((_, i) => (i === 7 ? [0, true, 'only this one'] : [0, false, undefined])),
    );
    for (const taskId of tasks) {
      expect((await store.read(taskId, 0)).map((e) => [e.offset, e.type === 'status' && e.phase])).toEqual([
        [0, taskId],
      ]);
    }
  });

  it('answers every append with the cancellation, which keeps its first reason', async () => {
    const taskId = id();
    await open(taskId);
    expect(
      (await store.append(taskId, { type: 'status', state: 'working', phase: 'planning' })).cancelled,
    ).toBe(false);
    expect(await store.cancel(taskId, 'workflow', 'user asked')).toEqual({
      task_id: taskId,
      cancelled: true,
      message: `Workflow ${taskId} cancellation requested`,
    });
    await store.cancel(taskId, 'workflow', 'second reason');
    expect(
      await store.append(taskId, { type: 'status', state: 'working', phase: 'execution' }),
    ).toMatchObject({
      cancelled: true,
      reason: 'user asked',
    });
    expect((await store.info(taskId)).is_cancelled).toBe(true);
  });

  it('answers cancels of unknown, finished and stopped tasks with the spec messages', async () => {
    expect(await failure(store.cancel('nope', 'workflow', 'x'))).toEqual({
      status: 404,
      detail: 'No active workflow found with ID nope',
    });
    expect(await failure(store.cancel('nope', 'ingestion', 'x'))).toEqual({
      status: 404,
      detail: 'No active ingestion job found with ID nope',
    });
    const done = id();
    await open(done);
    await store.append(done, { type: 'complete', result: { status: 'ok' } });
    expect(await failure(store.cancel(done, 'workflow', 'x'))).toEqual({
      status: 409,
      detail: `Workflow ${done} already finished`,
    });
    const stopped = id();
    await open(stopped, 'workflow', 'acme:acme', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await failure(store.cancel(stopped, 'workflow', 'x'))).toEqual({
      status: 409,
      detail: `Workflow ${stopped} stopped reporting before it finished`,
    });
    const job = id('job');
    await open(job, 'ingestion');
    expect(await failure(store.cancel(job, 'workflow', 'x'))).toMatchObject({ status: 404 });
  });

  it('refuses appends after the terminal event', async () => {
    const taskId = id();
    await open(taskId);
    await store.append(taskId, {
      type: 'error',
      error_type: 'Boom',
      error_message: 'agent failed with Boom',
      recoverable: false,
    });
    expect((await failure(store.append(taskId, { type: 'status', state: 'working' }))).status).toBe(409);
  });

  it('keeps a workflow newest 1,000 events; a reader behind the window starts at the oldest retained', async () => {
    const taskId = id();
    await open(taskId);
    for (let i = 0; i < 1003; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, 1003 - i) }, (_, k) =>
          store.append(taskId, { type: 'progress', current: i + k, total: 1003, percentage: 0, details: {} }),
        ),
      );
    }
    const info = await store.info(taskId);
    expect(info.event_count).toBe(1000);
    const oldest = (await store.read(taskId, 0, 5)).map((e) => e.offset);
    expect(oldest[0]).toBeGreaterThanOrEqual(3);
    expect(oldest[0]).toBeLessThanOrEqual(5);
  }, 60_000);

  it('forgets an ended workflow 30 minutes after its last event', async () => {
    const taskId = id();
    await open(taskId);
    await store.append(taskId, { type: 'complete', result: {} });
    expect((await store.info(taskId)).is_closed).toBe(true);
    clock.offset = 31 * 60_000;
    try {
      expect(await failure(store.info(taskId))).toEqual({
        status: 404,
        detail: `No queue found for task ${taskId}`,
      });
    } finally {
      clock.offset = 0;
    }
  });

  it('lists a tenant active tasks oldest first and cancels them all on request, keeping first reasons', async () => {
    const tenant = `t${Date.now().toString(36)}:t`;
    const [a, b, c] = [id('a'), id('b'), id('c')];
    await open(a, 'workflow', tenant);
    await open(b, 'ingestion', tenant, 6 * 3600_000);
    await open(c, 'workflow', tenant);
    await store.cancel(c, 'workflow', 'earlier reason');
    await store.append(a, { type: 'status', state: 'working' });
    expect((await store.active(tenant)).map((t) => t.task_id)).toEqual([a, b, c]);
    expect(await store.cancelTenant(tenant, 'tenant deleted')).toEqual([a, b, c]);
    expect((await store.get(c))?.cancel_reason).toBe('earlier reason');
    expect((await store.get(b))?.cancel_reason).toBe('tenant deleted');
  });

  it('counts subscribers while their lease lives', async () => {
    const taskId = id();
    await open(taskId);
    await store.subscribe(taskId, 's1');
    await store.subscribe(taskId, 's2', 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await store.info(taskId)).subscriber_count).toBe(1);
    await store.unsubscribe(taskId, 's1');
    expect((await store.info(taskId)).subscriber_count).toBe(0);
  });
});

describe('TaskReporter', () => {
  it('keeps its lease alive and turns a recorded cancellation into a cancel token', async () => {
    const reporter = await TaskReporter.open(store, {
      taskId: id(),
      kind: 'workflow',
      tenantId: 'acme:acme',
      leaseMs: 1500,
      pollMs: 20,
    });
    // Past the lease's length: only renewals keep the task active (a loaded machine delays a few of them).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const record = (await store.get(reporter.taskId))!;
    expect(store.condition(record)).toBe('active');
    await store.cancel(reporter.taskId, 'workflow', 'stop now');
    for (let waited = 0; !reporter.cancelled && waited < 2000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
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
      leaseMs: 100,
      pollMs: 20,
    });
    reporter.stop();
    await new Promise((resolve) => setTimeout(resolve, 150));
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
