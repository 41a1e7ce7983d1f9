import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SseStream } from '@tessera/core';
import { closedPortUrl, failure } from '@tessera/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoTaskEvents, streamTask, TaskEventsUnavailableError } from '../src/index';

/** A store whose DynamoDB refuses every connection: nothing listens at its endpoint. */
let store: DynamoTaskEvents;

beforeAll(async () => {
  const items = new DynamoDBClient({
    endpoint: await closedPortUrl(),
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  store = new DynamoTaskEvents(DynamoDBDocumentClient.from(items), Date.now, items);
});

const body = (taskId?: string) => ({
  error: 'task_events_unavailable',
  message: 'The task event store did not answer; retry.',
  failure: 'TaskEventsUnavailable',
  ...(taskId ? { task_id: taskId } : {}),
});

describe('DynamoTaskEvents when DynamoDB does not answer', () => {
  it('fails reads and cancellations with the 503 of document 3, naming the task', async () => {
    for (const call of [
      () => store.get('wf_1'),
      () => store.info('wf_1'),
      () => store.cancel('wf_1', 'workflow', 'stop'),
    ]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(TaskEventsUnavailableError);
      expect(error).toMatchObject({ status: 503, detail: body('wf_1') });
      // What the store failed with stays with the error, for the log.
      expect((error.cause as Error).name).not.toBe('TaskEventsUnavailableError');
    }
  });

  it("fails a tenant's task list without a task id", async () => {
    expect(await failure(store.active('acme:acme'))).toMatchObject({ status: 503, detail: body() });
  });

  it('fails a stream before it opens, so the route answers 503 instead of an empty stream', async () => {
    let opened = false;
    const error = await failure(
      streamTask(store, {
        taskId: 'wf_2',
        kind: 'workflow',
        open: () => {
          opened = true;
          return {} as SseStream;
        },
      }),
    );
    expect(error).toMatchObject({ status: 503, detail: body('wf_2') });
    expect(opened).toBe(false);
  });
});
