/** The contract of `TaskEvents`: offsets, terminal events, cancellation, leases, retention and subscribers. */
import type { HttpError } from '@tessera/core';
import type { TaskEvents } from '@tessera/events';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractClock, refusal, unique } from './support';

export function taskEventsContract(label: string, make: (now: () => number) => TaskEvents): void {
  describe(`${label} (TaskEvents contract)`, () => {
    const clock = contractClock();
    let store: TaskEvents;
    beforeAll(() => {
      store = make(clock.now);
    });
    const id = (prefix = 'task') => unique(prefix);
    const open = (
      taskId: string,
      kind: 'workflow' | 'ingestion' = 'workflow',
      tenant = 'acme:acme',
      leaseMs = 30_000,
    ) => store.open({ task_id: taskId, kind, tenant_id: tenant, owner: 'test', leaseMs });

    it('never reuses a task id', async () => {
      const taskId = id();
      await open(taskId);
      expect(await refusal(open(taskId))).toEqual({ status: 409, detail: `Task ${taskId} already exists` });
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
      expect(first[3]).toMatchObject({
        task_id: taskId,
        tenant_id: 'acme:acme',
        offset: 3,
        type: 'progress',
      });
      expect(first[3]!.event_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store.read(taskId, 0)).toEqual(first);
      expect((await store.read(taskId, 15)).map((e) => e.offset)).toEqual([15, 16, 17, 18, 19]);
      expect((await store.read(taskId, 0, 5)).map((e) => e.offset)).toEqual([0, 1, 2, 3, 4]);
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
      expect(await refusal(store.cancel('nope', 'workflow', 'x'))).toEqual({
        status: 404,
        detail: 'No active workflow found with ID nope',
      });
      expect(await refusal(store.cancel('nope', 'ingestion', 'x'))).toEqual({
        status: 404,
        detail: 'No active ingestion job found with ID nope',
      });
      const done = id();
      await open(done);
      await store.append(done, { type: 'complete', result: { status: 'ok' } });
      expect(await refusal(store.cancel(done, 'workflow', 'x'))).toEqual({
        status: 409,
        detail: `Workflow ${done} already finished`,
      });
      const stopped = id();
      await open(stopped, 'workflow', 'acme:acme', 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await refusal(store.cancel(stopped, 'workflow', 'x'))).toEqual({
        status: 409,
        detail: `Workflow ${stopped} stopped reporting before it finished`,
      });
      const job = id('job');
      await open(job, 'ingestion');
      expect(await refusal(store.cancel(job, 'workflow', 'x'))).toMatchObject({ status: 404 });
    });

    it('keeps a resumable task whose producer died interrupted, not stopped: listed, and a cancel recorded', async () => {
      const tenant = `${unique('t')}:t`;
      const [resumable, once] = [id('job'), id('wf')];
      await store.open({
        task_id: resumable,
        kind: 'ingestion',
        tenant_id: tenant,
        owner: 'worker',
        leaseMs: 1_000,
        resumable: true,
      });
      await open(once, 'workflow', tenant, 1_000);
      clock.offset = 2_000;
      try {
        expect(store.condition((await store.get(resumable))!)).toBe('interrupted');
        expect(store.condition((await store.get(once))!)).toBe('stopped');
        expect((await store.active(tenant)).map((t) => t.task_id)).toEqual([resumable]);
        expect(await store.cancel(resumable, 'ingestion', 'gave up')).toMatchObject({ cancelled: true });
        expect((await refusal(store.cancel(once, 'workflow', 'x'))).status).toBe(409);
        // The worker that takes it up again sees the cancellation.
        expect(await store.takeOver(resumable, 'nobody', 'next worker', 30_000)).toEqual({
          cancelled: true,
          reason: 'gave up',
        });
        expect(store.condition((await store.get(resumable))!)).toBe('active');
      } finally {
        clock.offset = 0;
      }
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
      expect((await refusal(store.append(taskId, { type: 'status', state: 'working' }))).status).toBe(409);
      expect(store.condition((await store.get(taskId))!)).toBe('ended');
    });

    it('keeps a workflow newest 1,000 events; a reader behind the window starts at the oldest retained', async () => {
      const taskId = id();
      await open(taskId);
      for (let i = 0; i < 1003; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, 1003 - i) }, (_, k) =>
            store.append(taskId, {
              type: 'progress',
              current: i + k,
              total: 1003,
              percentage: 0,
              details: {},
            }),
          ),
        );
      }
      const info = await store.info(taskId);
      expect(info.event_count).toBe(1000);
      const oldest = (await store.read(taskId, 0, 5)).map((e) => e.offset);
      expect(oldest[0]).toBeGreaterThanOrEqual(3);
      expect(oldest[0]).toBeLessThanOrEqual(5);
      expect(store.oldestRetained((await store.get(taskId))!)).toBe(3);
    }, 60_000);

    it('forgets an ended workflow 30 minutes after its last event, and a sweep removes it', async () => {
      const taskId = id();
      await open(taskId);
      await store.append(taskId, { type: 'complete', result: {} });
      expect((await store.info(taskId)).is_closed).toBe(true);
      expect(await store.sweepExpired()).not.toContain(taskId);
      clock.offset = 31 * 60_000;
      try {
        expect(await refusal(store.info(taskId))).toEqual({
          status: 404,
          detail: `No queue found for task ${taskId}`,
        });
        expect(await store.sweepExpired()).toContain(taskId);
        expect(await store.read(taskId, 0)).toEqual([]);
      } finally {
        clock.offset = 0;
      }
    });

    it('hands a lease over from its holder, or from anyone once it lapsed, never after the task ended', async () => {
      const taskId = id('job');
      await open(taskId, 'ingestion', 'acme:acme', 60_000);
      expect(await store.takeOver(taskId, 'someone else', 'w1', 1_000)).toBeUndefined();
      expect(await store.takeOver(taskId, 'test', 'w1', 1_000)).toEqual({
        cancelled: false,
        reason: undefined,
      });
      expect(await store.renew(taskId, 'w1', 1_000)).toMatchObject({ cancelled: false });
      expect(await store.takeOver(taskId, 'test', 'w2', 1_000)).toBeUndefined();
      expect(store.condition((await store.get(taskId))!)).toBe('active');
      clock.offset = 2_000;
      try {
        expect(store.condition((await store.get(taskId))!)).toBe('stopped');
        // A lapsed lease goes to whoever asks (a worker taking over from one that crashed).
        expect(await store.takeOver(taskId, 'nobody', 'w3', 1_000)).toMatchObject({ cancelled: false });
        expect(await store.renew(taskId, 'w1', 1_000)).toBeUndefined();
        expect(await store.renew(taskId, 'w3', 1_000)).toMatchObject({ cancelled: false });
      } finally {
        clock.offset = 0;
      }
      await store.append(taskId, { type: 'complete', result: {} });
      expect(await store.takeOver(taskId, 'w3', 'w3', 60_000)).toBeUndefined();
    });

    it('lists a tenant active tasks oldest first and cancels them all on request, keeping first reasons', async () => {
      const tenant = `${unique('t')}:t`;
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

    it('lists every retained task of a tenant, and has an ended one forgotten after the retention', async () => {
      const tenant = `${unique('t')}:t`;
      const [done, running, job] = [id('done'), id('running'), id('job')];
      await open(done, 'workflow', tenant);
      await open(running, 'workflow', tenant);
      await open(job, 'ingestion', tenant);
      await open(id('other'), 'ingestion', `${tenant}x`);
      await store.append(done, { type: 'complete', result: {} });
      await store.append(job, { type: 'status', state: 'cancelled', message: 'tenant deleted' });
      const ids = async () => (await store.tenantTasks(tenant)).map((t) => t.task_id).sort();
      expect(await ids()).toEqual([done, running, job].sort());
      await store.expireEnded(job);
      await store.expireEnded(running);
      clock.offset = 29 * 60_000;
      try {
        expect(await ids()).toEqual([done, running, job].sort());
      } finally {
        clock.offset = 0;
      }
      clock.offset = 31 * 60_000;
      try {
        // The ended job goes; the task not ended is left alone.
        expect(await ids()).toEqual([running]);
        expect(await store.sweepExpired()).toEqual(expect.arrayContaining([done, job]));
      } finally {
        clock.offset = 0;
      }
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
}
