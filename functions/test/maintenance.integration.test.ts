/** The scheduled upkeep handlers against the emulators (integration: starts them). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { DynamoTaskEvents, ENDED_RETENTION_MS } from '@tessera/events';
import { documentClient, resourceName, tables } from '@tessera/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schedules, splitHandler } from '../routes';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'maintenance-')));
});

afterAll(async () => {
  await emulators?.stop();
});

/** The task's row and its event rows as stored, whether readers would still see them or not. */
async function storedRows(taskId: string) {
  const client = documentClient();
  const task = await client.send(
    new GetCommand({
      TableName: resourceName(tables.taskQueues),
      Key: { task_id: taskId },
      ConsistentRead: true,
    }),
  );
  const events = await client.send(
    new QueryCommand({
      TableName: resourceName(tables.taskEvents),
      KeyConditionExpression: 'task_id = :task',
      ExpressionAttributeValues: { ':task': taskId },
      ConsistentRead: true,
    }),
  );
  return { task: task.Item !== undefined, events: events.Items?.length ?? 0 };
}

/** A workflow with a progress event and a completion, as a store whose clock reads `clock()` wrote it. */
async function endedWorkflow(taskId: string, clock: () => number): Promise<void> {
  const store = new DynamoTaskEvents(undefined, clock);
  await store.open({
    task_id: taskId,
    kind: 'workflow',
    tenant_id: 'acme:acme',
    owner: 'test',
    leaseMs: 30_000,
  });
  await store.append(taskId, { type: 'progress', current: 1, total: 2, percentage: 50, details: {} });
  await store.append(taskId, { type: 'complete', result: {} });
}

describe('task-event sweep', () => {
  it('runs on a schedule', () => {
    const sweep = schedules.find((schedule) => schedule.name === 'task-event-sweep');
    expect(sweep && splitHandler(sweep.handler)).toEqual({
      module: 'workers/maintenance',
      exportName: 'sweepTaskEvents',
    });
    expect(sweep?.rateMinutes).toBe(30);
  });

  it("removes an expired workflow's task row and event rows, and keeps workflows still retained", async () => {
    const expired = `workflow_expired_${Date.now()}`;
    const recent = `workflow_recent_${Date.now()}`;
    const running = `workflow_running_${Date.now()}`;
    await endedWorkflow(expired, () => Date.now() - ENDED_RETENTION_MS - 60_000);
    await endedWorkflow(recent, Date.now);
    const store = new DynamoTaskEvents();
    await store.open({
      task_id: running,
      kind: 'workflow',
      tenant_id: 'acme:acme',
      owner: 'test',
      leaseMs: 30_000,
    });
    await store.append(running, { type: 'status', state: 'working' });
    expect(await storedRows(expired)).toEqual({ task: true, events: 2 });

    const sweep = schedules.find((schedule) => schedule.name === 'task-event-sweep')!;
    const { module, exportName } = splitHandler(sweep.handler);
    const handlers: Record<string, () => Promise<{ swept: number }>> = await import(
      /* @vite-ignore */ new URL(`../${module}.ts`, import.meta.url).href
    );
    expect(await handlers[exportName]!()).toEqual({ swept: 1 });

    expect(await storedRows(expired)).toEqual({ task: false, events: 0 });
    expect(await storedRows(recent)).toEqual({ task: true, events: 2 });
    expect(await storedRows(running)).toEqual({ task: true, events: 1 });
  });
});
