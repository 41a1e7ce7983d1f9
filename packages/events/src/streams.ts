/** Reading a task's events as a stream: replay from an offset, then live events until the task ends. */
import { randomUUID } from 'node:crypto';
import { HttpError, ServiceUnavailableError, ValidationError } from '@tessera/core';
import { eventsEnv } from './env';
import type { TaskKind } from './model';
import { appended, type TaskEventStore } from './store';

export const HEARTBEAT_MS = eventsEnv.heartbeatMs;
/** How often one watcher per task and process looks for events appended by other processes. */
export const POLL_MS = 50;

/**
 * One watcher per task in this process, however many streams read it: it polls the task row and wakes the
 * streams when its offset or state moved, so a hundred readers cost one poll, not a hundred.
 */
const watchers = new Map<string, { readers: number; stop: () => void }>();

function watch(store: TaskEventStore, taskId: string): () => void {
  let watcher = watchers.get(taskId);
  if (!watcher) {
    let last = '';
    let running = true;
    const loop = async () => {
      while (running) {
        try {
          const record = await store.get(taskId);
          const seen = record ? `${record.next_offset}|${record.ended}|${store.condition(record)}` : 'gone';
          if (seen !== last) {
            last = seen;
            appended.emit(taskId);
          }
        } catch {
          appended.emit(taskId);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    };
    watcher = {
      readers: 0,
      stop: () => {
        running = false;
      },
    };
    watchers.set(taskId, watcher);
    void loop();
  }
  watcher.readers++;
  const current = watcher;
  return () => {
    current.readers--;
    if (current.readers === 0) {
      current.stop();
      watchers.delete(taskId);
    }
  };
}

export interface FrameSink {
  event(data: unknown, id?: number): Promise<void>;
  comment(text: string): Promise<void>;
  readonly closed: boolean;
  signal: AbortSignal;
}

/** The store not answering, before any stream starts: 503 `task_events_unavailable`. */
export function unavailable(taskId: string | undefined, error: unknown): unknown {
  if (error instanceof HttpError) return error;
  return new ServiceUnavailableError(
    'task_events_unavailable',
    'The task event store did not answer; retry.',
    {
      failure: 'TaskEventsUnavailable',
      ...(taskId ? { task_id: taskId } : {}),
    },
  );
}

/** Waits for an append to the task in this process, the poll interval, or the client leaving. */
function nextChange(taskId: string, signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      appended.off(taskId, done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    appended.on(taskId, done);
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface StreamRequest {
  taskId: string;
  kind: TaskKind;
  fromOffset?: number;
  lastEventId?: string;
  open(): FrameSink;
}

export async function streamTask(
  store: TaskEventStore,
  request: StreamRequest,
  heartbeatMs = HEARTBEAT_MS,
): Promise<void> {
  const { taskId } = request;
  const record = await store.get(taskId).catch((error: unknown) => {
    throw unavailable(taskId, error);
  });
  const resumeAt =
    request.lastEventId !== undefined && /^\d+$/.test(request.lastEventId)
      ? Number(request.lastEventId) + 1
      : undefined;
  let offset = request.fromOffset ?? resumeAt ?? 0;
  if (record && offset > record.next_offset) {
    throw new ValidationError([
      {
        type: 'less_than_equal',
        loc: ['query', 'from_offset'],
        msg: `from_offset ${offset} is past the end of task ${taskId}, whose next offset is ${record.next_offset}`,
        input: offset,
      },
    ]);
  }
  const sink = request.open();
  if (!record || record.kind !== request.kind) {
    await sink.event({ type: 'error', message: `No active queue for task ${taskId}` });
    return;
  }
  offset = Math.max(offset, record.first_offset);
  await sink.event({ type: 'connected', task_id: taskId, offset, timestamp: new Date().toISOString() });

  const subscriber = randomUUID();
  const unwatch = watch(store, taskId);
  let idleSince = Date.now();
  let subscribedAt = 0;
  try {
    while (!sink.closed) {
      if (Date.now() - subscribedAt > 10_000) {
        await store.subscribe(taskId, subscriber);
        subscribedAt = Date.now();
      }
      const events = await store.read(taskId, offset);
      for (const event of events) {
        await sink.event(event, event.offset);
        offset = event.offset + 1;
      }
      if (events.length > 0) {
        idleSince = Date.now();
        continue;
      }
      const current = await store.get(taskId);
      if (!current) break;
      const state = store.condition(current);
      if (offset >= current.next_offset && state === 'ended') break;
      if (offset >= current.next_offset && state === 'stopped') {
        await sink.event({ type: 'error', message: `Task ${taskId} stopped reporting before it finished` });
        break;
      }
      if (Date.now() - idleSince >= heartbeatMs) {
        await sink.comment('heartbeat');
        idleSince = Date.now();
      }
      await nextChange(taskId, sink.signal, Math.max(1, heartbeatMs - (Date.now() - idleSince)));
    }
  } catch (error) {
    if (!sink.closed) {
      await sink.event({
        type: 'stream_error',
        message: 'The task event store stopped answering; reconnect with Last-Event-ID to resume.',
        failure: (error as Error).name || 'Error',
      });
    }
  } finally {
    unwatch();
    await store.unsubscribe(taskId, subscriber).catch(() => undefined);
  }
}
