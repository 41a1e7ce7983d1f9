import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { dynamoClient } from '@tessera/platform';
import { taskEventsContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoTaskEvents } from '../src/index';

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

const open = (
  taskId: string,
  kind: 'workflow' | 'ingestion' = 'workflow',
  tenant = 'acme:acme',
  leaseMs = 30_000,
) => store.open({ task_id: taskId, kind, tenant_id: tenant, owner: 'test', leaseMs });

taskEventsContract('DynamoTaskEvents', (now) => new DynamoTaskEvents(undefined, now));

describe('DynamoTaskEvents', () => {
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
});
