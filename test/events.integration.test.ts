import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';
import { readStream } from './support/sse';

let rt: RuntimeProcess;
type Store = import('@tessera/events').TaskEvents;
let store: Store;
let counter = 0;
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${counter++}`;

beforeAll(async () => {
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  // This process is the producer; the runtime streams and cancels: two processes, one store.
  process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const { taskEvents } = await import('@tessera/events');
  store = taskEvents();
});

afterAll(async () => {
  await rt?.stop();
});

const open = (taskId: string, kind: 'workflow' | 'ingestion' = 'workflow', leaseMs = 60_000) =>
  store.open({ task_id: taskId, kind, tenant_id: 'acme:acme', owner: 'test', leaseMs });

describe('event streams (integration)', () => {
  it('opens with connected, replays, delivers live events with offsets as ids, and ends after the terminal event', async () => {
    const taskId = id('wf');
    await open(taskId);
    await store.append(taskId, { type: 'status', state: 'working', phase: 'started' });
    const reading = readStream(`${rt.url}/events/workflows/${taskId}`, {
      onFrame: (frame) => {
        if (frame.data?.phase === 'started') {
          void store
            .append(taskId, { type: 'progress', current: 1, total: 2, percentage: 50, details: {} })
            .then(() => store.append(taskId, { type: 'complete', result: { status: 'completed' } }));
        }
      },
    });
    const { status, frames } = await reading;
    expect(status).toBe(200);
    expect(frames[0]!.data).toMatchObject({ type: 'connected', task_id: taskId, offset: 0 });
    expect(frames.slice(1).map((f) => [f.id, f.data.type])).toEqual([
      ['0', 'status'],
      ['1', 'progress'],
      ['2', 'complete'],
      [undefined, 'end'],
    ]);
    // A replay is byte-identical: stored ids and timestamps.
    const replay = await readStream(`${rt.url}/events/workflows/${taskId}?from_offset=1`);
    expect(replay.frames.slice(1).map((f) => f.data)).toEqual(frames.slice(2).map((f) => f.data));
    // Last-Event-ID resumes after the given offset.
    const resumed = await readStream(`${rt.url}/events/workflows/${taskId}`, {
      headers: { 'last-event-id': '1' },
    });
    expect(resumed.frames.slice(1, -1).map((f) => f.id)).toEqual(['2']);
    expect(resumed.frames.at(-1)!.data.type).toBe('end');
  });

  it('ends a stopped task stream with the stopped frame', async () => {
    const taskId = id('wf');
    await open(taskId, 'workflow', 300);
    await store.append(taskId, { type: 'status', state: 'working', phase: 'planning' });
    const started = Date.now();
    const { frames } = await readStream(`${rt.url}/events/workflows/${taskId}`);
    // The lease lapses 300 ms after the open: readers hear of it at the feed's next poll, not a heartbeat later.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(frames.at(-2)!.data).toEqual({
      type: 'error',
      message: `Task ${taskId} stopped reporting before it finished`,
    });
    expect(frames.at(-1)!.data).toEqual({ type: 'end', task_id: taskId, outcome: 'stopped', next_offset: 1 });
  });

  it('resumes a reconnect at Last-Event-ID when its URL names from_offset, as an EventSource reconnects', async () => {
    const taskId = id('wf');
    await open(taskId);
    for (const phase of ['one', 'two', 'three'])
      await store.append(taskId, { type: 'status', state: 'working', phase });
    const reconnect = await readStream(`${rt.url}/events/workflows/${taskId}?from_offset=0`, {
      headers: { 'last-event-id': '1' },
      until: (frames) => frames.some((frame) => frame.id === '2'),
    });
    expect(reconnect.frames[0]!.data).toMatchObject({ type: 'connected', offset: 2 });
    expect(reconnect.frames.slice(1).map((f) => f.id)).toEqual(['2']);
  });

  it('tells a client not to reconnect once the task ended: an end frame with a retry hint, then 204', async () => {
    const taskId = id('wf');
    await open(taskId);
    await store.append(taskId, { type: 'status', state: 'working', phase: 'started' });
    await store.append(taskId, { type: 'complete', result: { status: 'completed' } });
    const url = `${rt.url}/events/workflows/${taskId}?from_offset=0`;
    const { frames } = await readStream(url);
    expect(frames.at(-1)).toEqual({
      retry: '3600000',
      data: { type: 'end', task_id: taskId, outcome: 'ended', next_offset: 2 },
    });
    // The reconnect an EventSource makes anyway: nothing left, 204 (it then stops for good).
    const again = await fetch(url, { headers: { 'last-event-id': '1' } });
    expect(again.status).toBe(204);
    expect(await again.text()).toBe('');
    // One that missed the last event gets it, then the end frame.
    const missed = await readStream(url, { headers: { 'last-event-id': '0' } });
    expect(missed.frames.slice(1).map((f) => f.data.type)).toEqual(['complete', 'end']);
  });

  it('answers one error event for a task with no queue of that kind', async () => {
    const job = id('job');
    await open(job, 'ingestion');
    for (const url of [`${rt.url}/events/workflows/${job}`, `${rt.url}/events/ingestion/nothing_here`]) {
      const { frames } = await readStream(url);
      expect(frames).toHaveLength(1);
      expect(frames[0]!.data.type).toBe('error');
      expect(frames[0]!.data.message).toMatch(/^No active queue for task /);
    }
  });

  it('refuses bad offsets before the stream starts', async () => {
    const taskId = id('wf');
    await open(taskId);
    for (const offset of ['-1', 'abc', '1.5', '99']) {
      const { status, body } = await readStream(`${rt.url}/events/workflows/${taskId}?from_offset=${offset}`);
      expect(status, offset).toBe(422);
      expect(body!.detail[0]!.loc).toEqual(['query', 'from_offset']);
    }
  });

  it('counts a reader as a subscriber and lets it go when it disconnects', async () => {
    const taskId = id('wf');
    await open(taskId);
    await readStream(`${rt.url}/events/workflows/${taskId}`, { until: (frames) => frames.length >= 1 });
    // The server notices the closed connection at its next write or poll.
    let count = 1;
    for (let i = 0; i < 40 && count > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      count = (await call(rt.url, 'GET', `/events/queues/${taskId}`)).body.subscriber_count;
    }
    expect(count).toBe(0);
  });
});

describe('cancel and queue routes (integration)', () => {
  it('cancels, keeps the first reason, and answers finished and unknown tasks', async () => {
    const taskId = id('wf');
    await open(taskId);
    expect(
      await call(rt.url, 'POST', `/events/workflows/${taskId}/cancel`, { reason: 'stop please' }),
    ).toMatchObject({
      status: 200,
      body: { task_id: taskId, cancelled: true, message: `Workflow ${taskId} cancellation requested` },
    });
    expect((await call(rt.url, 'POST', `/events/workflows/${taskId}/cancel`)).status).toBe(200);
    expect((await store.append(taskId, { type: 'status', state: 'working' })).reason).toBe('stop please');
    await store.append(taskId, { type: 'status', state: 'cancelled', message: 'stop please' });
    expect(
      await call(rt.url, 'POST', `/events/workflows/${taskId}/cancel`, { reason: 'again' }),
    ).toMatchObject({
      status: 409,
      body: { detail: `Workflow ${taskId} already finished` },
    });
    expect(await call(rt.url, 'POST', '/events/ingestion/ghost/cancel', {})).toMatchObject({
      status: 404,
      body: { detail: 'No active ingestion job found with ID ghost' },
    });
  });

  it('lists the tenant active tasks, gives info and the next offset', async () => {
    const taskId = id('job');
    await open(taskId, 'ingestion');
    await store.append(taskId, { type: 'status', state: 'pending' });
    const listed = await call(rt.url, 'GET', '/events/queues?tenant_id=acme');
    expect(listed.status).toBe(200);
    expect(listed.body.tenant_id).toBe('acme:acme');
    expect(listed.body.queues.map((q: { task_id: string }) => q.task_id)).toContain(taskId);
    expect((await call(rt.url, 'GET', '/events/queues?tenant_id=acme:acme')).body.count).toBe(
      listed.body.count,
    );
    expect((await call(rt.url, 'GET', `/events/queues/${taskId}`)).body).toMatchObject({
      task_id: taskId,
      kind: 'ingestion',
      tenant_id: 'acme:acme',
      event_count: 1,
      is_closed: false,
      is_cancelled: false,
    });
    expect((await call(rt.url, 'GET', `/events/queues/${taskId}/offset`)).body).toEqual({
      task_id: taskId,
      offset: 1,
    });
    expect(await call(rt.url, 'GET', '/events/queues/ghost')).toMatchObject({
      status: 404,
      body: { detail: 'No queue found for task ghost' },
    });
    expect((await call(rt.url, 'GET', '/events/queues')).status).toBe(422);
    expect((await call(rt.url, 'GET', '/events/queues?tenant_id=ghost')).status).toBe(404);
  });
});
