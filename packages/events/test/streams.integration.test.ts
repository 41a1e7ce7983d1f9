import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SseStream } from '@tessera/core';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { documentClient, resourceName, tables } from '@tessera/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoTaskEvents, type TaskEvent, type TaskEvents } from '../src/index';
import { streamTask } from '../src/streams';

let emulators: Emulators;
let counter = 0;
const id = () => `stream_${Date.now().toString(36)}_${counter++}`;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'streams-')));
});

afterAll(async () => {
  await emulators?.stop();
});

/** A store that tells when its reads returned the event at an offset a number of times. */
class WatchedStore extends DynamoTaskEvents {
  private watches: { offset: number; times: number; resolve: () => void }[] = [];

  override async read(taskId: string, from: number, limit?: number): Promise<TaskEvent[]> {
    const events = await super.read(taskId, from, limit);
    for (const watch of this.watches) {
      if (events.some((e) => e.offset === watch.offset) && --watch.times === 0) watch.resolve();
    }
    return events;
  }

  readReturns(offset: number, times: number): Promise<void> {
    return new Promise((resolve) => this.watches.push({ offset, times, resolve }));
  }
}

/** A sink recording event frames; `reached(n)` resolves once n of them arrived. */
function recordingSink() {
  const frames: { data: unknown; id?: number }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const controller = new AbortController();
  const sink: SseStream = {
    async event(data, frameId) {
      frames.push({ data, id: frameId });
      for (const waiter of waiters) if (frames.length >= waiter.count) waiter.resolve();
    },
    async comment() {},
    closed: false,
    signal: controller.signal,
  };
  const reached = (count: number) =>
    new Promise<void>((resolve) => {
      if (frames.length >= count) resolve();
      else waiters.push({ count, resolve });
    });
  const offsets = () => frames.filter((frame) => frame.id !== undefined).map((frame) => frame.id);
  return { sink, reached, offsets };
}

const client = () => documentClient();

/** Takes `count` offsets on the task row, as appends do before they store their rows. */
const takeOffsets = (taskId: string, count: number) =>
  client().send(
    new UpdateCommand({
      TableName: resourceName(tables.taskQueues),
      Key: { task_id: taskId },
      UpdateExpression: 'ADD next_offset :count',
      ExpressionAttributeValues: { ':count': count },
    }),
  );

/** Stores the event row of `offset` as an append does. */
const storeRow = (taskId: string, offset: number) =>
  client().send(
    new PutCommand({
      TableName: resourceName(tables.taskEvents),
      Item: {
        task_id: taskId,
        offset_key: String(offset).padStart(12, '0'),
        event: JSON.stringify({
          type: 'status',
          state: 'working',
          phase: `p${offset}`,
          task_id: taskId,
          tenant_id: 'acme:acme',
          event_id: `event-${offset}`,
          timestamp: new Date().toISOString(),
          offset,
        }),
      },
    }),
  );

/** A watched store and a workflow with events at offsets 0 to 2. */
async function openWithEvents(): Promise<{ store: WatchedStore; taskId: string }> {
  const store = new WatchedStore();
  const taskId = id();
  await store.open({
    task_id: taskId,
    kind: 'workflow',
    tenant_id: 'acme:acme',
    owner: 'test',
    leaseMs: 60_000,
  });
  for (let i = 0; i < 3; i++)
    await store.append(taskId, { type: 'status', state: 'working', phase: `p${i}` });
  return { store, taskId };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * Streams the task from offset 0 and waits for the connected frame and its first three events; answers a
 * function that ends the task and then answers the offsets the reader delivered.
 */
async function readFromStart(store: TaskEvents, taskId: string): Promise<() => Promise<unknown[]>> {
  const { sink, reached, offsets } = recordingSink();
  const streaming = streamTask(store, { taskId, kind: 'workflow', fromOffset: 0, open: () => sink });
  await reached(4);
  return async () => {
    await store.append(taskId, { type: 'complete', result: {} });
    await streaming;
    return offsets();
  };
}

describe('streamTask with the emulated DynamoDB (integration)', () => {
  it.each(['before', 'after'] as const)(
    'delivers in order an event whose row is stored after the row of a later offset (reader connected %s)',
    async (connected) => {
      const { store, taskId } = await openWithEvents();
      const reader = connected === 'before' ? await readFromStart(store, taskId) : undefined;
      // Two concurrent appends took offsets 3 and 4; the row of 4 is stored first, the row of 3 is on its way.
      await takeOffsets(taskId, 2);
      // Reads (the feed's, and a reader's own) return the later row twice before the missing one lands.
      const seenLater = store.readReturns(4, 2);
      await storeRow(taskId, 4);
      const end = reader ?? (await readFromStart(store, taskId));
      await seenLater;
      await storeRow(taskId, 3);

      expect(await end()).toEqual([0, 1, 2, 3, 4, 5]);
    },
  );

  it('resumes a reader left behind a workflow window at its oldest retained event', async () => {
    const { store, taskId } = await openWithEvents();
    const end = await readFromStart(store, taskId);
    // While the reader waits, 1,502 more events come and the window keeps the newest 1,000: 505 to 1,504.
    await Promise.all(range(505, 1505).map((offset) => storeRow(taskId, offset)));
    await client().send(
      new UpdateCommand({
        TableName: resourceName(tables.taskQueues),
        Key: { task_id: taskId },
        UpdateExpression: 'SET next_offset = :next, first_offset = :first',
        ExpressionAttributeValues: { ':next': 1505, ':first': 505 },
      }),
    );

    expect(await end()).toEqual([0, 1, 2, ...range(505, 1506)]);
  }, 30_000);
});
