/**
 * Event streams when the task event store goes away: the emulators' runtime is stopped under a second runtime
 * streaming from it. A file of its own (it ends its store), run against the runtime's own emulators only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';
import { readStream } from './support/sse';

let rt: RuntimeProcess;
let store: import('@tessera/events').TaskEvents;

beforeAll(async () => {
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  // This process is the producer; the runtimes stream and cancel: processes sharing one store.
  process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const { taskEvents } = await import('@tessera/events');
  store = taskEvents();
});

afterAll(async () => {
  await rt?.stop();
});

describe('event streams when the store fails (integration)', () => {
  it('sends heartbeats while idle, ends a stream with stream_error when the store goes, and answers 503 before a stream', async () => {
    const second = await spawnRuntime({
      env: { AWS_ENDPOINT_URL: rt.emulatorUrl!, TESSERA_SSE_HEARTBEAT_SECONDS: '0.3' },
    });
    try {
      const taskId = `wf_outage_${Date.now().toString(36)}`;
      await store.open({
        task_id: taskId,
        kind: 'workflow',
        tenant_id: 'acme:acme',
        owner: 'test',
        leaseMs: 60_000,
      });
      let stopped = false;
      const { frames } = await readStream(`${second.url}/events/workflows/${taskId}`, {
        onFrame: (frame) => {
          if (frame.comment === 'heartbeat' && !stopped) {
            stopped = true;
            void rt.stop();
          }
        },
      });
      expect(frames[0]!.data.type).toBe('connected');
      expect(frames.some((f) => f.comment === 'heartbeat')).toBe(true);
      expect(frames.at(-1)!.data).toMatchObject({ type: 'stream_error' });
      const refused = await call(second.url, 'GET', `/events/workflows/${taskId}`);
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toEqual({
        error: 'task_events_unavailable',
        message: 'The task event store did not answer; retry.',
        failure: 'TaskEventsUnavailable',
        task_id: taskId,
      });
      expect((await call(second.url, 'POST', `/events/workflows/${taskId}/cancel`, {})).status).toBe(503);
    } finally {
      await second.stop();
    }
  }, 90_000);
});
