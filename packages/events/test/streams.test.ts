import type { SseStream } from '@tessera/core';
import { InMemoryTaskEvents } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import { ENDED_RETRY_MS, type StreamRequest, streamTask } from '../src/streams';

let counter = 0;
const id = (prefix = 'wf') => `${prefix}_${Date.now().toString(36)}_${counter++}`;

interface Frame {
  data: { type: string; [field: string]: unknown };
  id?: number;
  retryMs?: number;
}

/** A sink recording the frames a stream writes. */
function recordingSink() {
  const frames: Frame[] = [];
  const controller = new AbortController();
  const sink: SseStream = {
    async event(data, frameId, retryMs) {
      frames.push({ data: data as Frame['data'], id: frameId, retryMs });
    },
    async comment() {},
    get closed() {
      return controller.signal.aborted;
    },
    signal: controller.signal,
  };
  return { sink, frames, close: () => controller.abort() };
}

/** Streams a task to its end; answers the frames, or `204` when the stream answered No Content. */
async function stream(
  store: InMemoryTaskEvents,
  request: Omit<StreamRequest, 'open' | 'noContent'>,
): Promise<Frame[] | 204> {
  const { sink, frames } = recordingSink();
  let status = 200;
  await streamTask(store, {
    ...request,
    open: () => sink,
    noContent: () => {
      status = 204;
    },
  });
  return status === 204 ? 204 : frames;
}

/** A workflow with three events (offsets 0 to 2), ended by the last one unless `ended` is false. */
async function workflow(store: InMemoryTaskEvents, ended = true): Promise<string> {
  const taskId = id();
  await store.open({
    task_id: taskId,
    kind: 'workflow',
    tenant_id: 'acme:acme',
    owner: 'o',
    leaseMs: 60_000,
  });
  await store.append(taskId, { type: 'status', state: 'working', phase: 'one' });
  await store.append(taskId, { type: 'status', state: 'working', phase: 'two' });
  if (ended) await store.append(taskId, { type: 'complete', result: {} });
  else await store.append(taskId, { type: 'status', state: 'working', phase: 'three' });
  return taskId;
}

describe('streamTask', () => {
  it('resumes after Last-Event-ID even when the URL names a from_offset (an EventSource reconnecting)', async () => {
    const store = new InMemoryTaskEvents();
    const taskId = await workflow(store);
    const frames = (await stream(store, {
      taskId,
      kind: 'workflow',
      fromOffset: 0,
      lastEventId: '0',
    })) as Frame[];
    expect(frames[0]!.data).toMatchObject({ type: 'connected', offset: 1 });
    expect(frames.filter((frame) => frame.id !== undefined).map((frame) => frame.id)).toEqual([1, 2]);
  });

  it('starts at from_offset without Last-Event-ID, and at 0 without either', async () => {
    const store = new InMemoryTaskEvents();
    const taskId = await workflow(store);
    const offsets = async (request: Partial<StreamRequest>) =>
      ((await stream(store, { taskId, kind: 'workflow', ...request })) as Frame[])
        .filter((frame) => frame.id !== undefined)
        .map((frame) => frame.id);
    expect(await offsets({ fromOffset: 2 })).toEqual([2]);
    expect(await offsets({})).toEqual([0, 1, 2]);
    expect(await offsets({ fromOffset: 1, lastEventId: 'not-a-number' })).toEqual([1, 2]);
  });

  it('ends the stream of an ended task with an end frame that asks a reconnecting client to wait', async () => {
    const store = new InMemoryTaskEvents();
    const taskId = await workflow(store);
    const frames = (await stream(store, { taskId, kind: 'workflow' })) as Frame[];
    expect(frames.at(-2)!.data.type).toBe('complete');
    expect(frames.at(-1)).toEqual({
      data: { type: 'end', task_id: taskId, outcome: 'ended', next_offset: 3 },
      id: undefined,
      retryMs: ENDED_RETRY_MS,
    });
  });

  it('answers 204 to a reconnect after the last event of an ended task, and replays what it missed', async () => {
    const store = new InMemoryTaskEvents();
    const taskId = await workflow(store);
    expect(await stream(store, { taskId, kind: 'workflow', lastEventId: '2' })).toBe(204);
    expect(await stream(store, { taskId, kind: 'workflow', fromOffset: 0, lastEventId: '2' })).toBe(204);
    const missed = (await stream(store, { taskId, kind: 'workflow', lastEventId: '1' })) as Frame[];
    expect(missed.map((frame) => frame.data.type)).toEqual(['connected', 'complete', 'end']);
  });

  it('answers 204 to a reconnect to a task that is not there, and an error frame with the retry hint to a first request', async () => {
    const store = new InMemoryTaskEvents();
    expect(await stream(store, { taskId: 'nothing', kind: 'workflow', lastEventId: '4' })).toBe(204);
    expect(await stream(store, { taskId: 'nothing', kind: 'workflow' })).toEqual([
      { data: { type: 'error', message: 'No active queue for task nothing' }, retryMs: ENDED_RETRY_MS },
    ]);
  });

  it('refuses a Last-Event-ID past the end of the task, naming the header', async () => {
    const store = new InMemoryTaskEvents();
    const taskId = await workflow(store, false);
    await expect(stream(store, { taskId, kind: 'workflow', lastEventId: '7' })).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ['header', 'last-event-id'], input: '7' }],
    });
  });

  it('ends a stopped workflow stream with the stopped error, then the end frame', async () => {
    const clock = { now: Date.now() };
    const store = new InMemoryTaskEvents(() => clock.now);
    const taskId = await workflow(store, false);
    clock.now += 61_000;
    const frames = (await stream(store, { taskId, kind: 'workflow' })) as Frame[];
    expect(frames.slice(-2).map((frame) => frame.data)).toEqual([
      { type: 'error', message: `Task ${taskId} stopped reporting before it finished` },
      { type: 'end', task_id: taskId, outcome: 'stopped', next_offset: 3 },
    ]);
    expect(await stream(store, { taskId, kind: 'workflow', lastEventId: '2' })).toBe(204);
  });

  it('keeps the stream of a resumable task whose producer died open, says so once, and follows the next attempt', async () => {
    const clock = { now: Date.now() };
    const store = new InMemoryTaskEvents(() => clock.now);
    const taskId = id('job');
    await store.open({
      task_id: taskId,
      kind: 'ingestion',
      tenant_id: 'acme:acme',
      owner: 'worker 1',
      leaseMs: 1_000,
      resumable: true,
    });
    await store.append(taskId, { type: 'status', state: 'working', phase: 'running' });
    clock.now += 2_000;
    const { sink, frames } = recordingSink();
    const streaming = streamTask(store, { taskId, kind: 'ingestion', open: () => sink, noContent: () => {} });
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 200 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(ok()).toBe(true);
    };
    await until(() => frames.some((frame) => frame.data.type === 'interrupted'));
    // A reconnect now resumes rather than being told the task is over.
    const reconnect = recordingSink();
    let noContent = false;
    const reconnecting = streamTask(store, {
      taskId,
      kind: 'ingestion',
      lastEventId: '0',
      open: () => reconnect.sink,
      noContent: () => {
        noContent = true;
      },
    });
    await until(() => reconnect.frames.some((frame) => frame.data.type === 'interrupted'));
    reconnect.close();
    await reconnecting;
    expect(noContent).toBe(false);
    // The next attempt takes the task over and ends it.
    await store.takeOver(taskId, 'nobody', 'worker 2', 30_000);
    await store.append(taskId, { type: 'status', state: 'working', phase: 'running', message: 'delivery 2' });
    await store.append(taskId, { type: 'complete', result: {} });
    await streaming;
    expect(frames.map((frame) => frame.data.type)).toEqual([
      'connected',
      'status',
      'interrupted',
      'status',
      'complete',
      'end',
    ]);
    expect(frames[2]!.data).toEqual({
      type: 'interrupted',
      task_id: taskId,
      message: `The worker of task ${taskId} is gone; the task resumes when its queue delivers it again`,
    });
  });
});
