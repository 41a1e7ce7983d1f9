/** Reading a task's events as a stream: replay from an offset, then live events until the task ends. */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type SseStream, ValidationError } from '@tessera/core';
import { eventsEnv } from './env';
import type { TaskEvent, TaskKind } from './model';
import { appended, type TaskEvents, type TaskRecord } from './task-events';
import { TaskEventsUnavailableError } from './unavailable';

export const HEARTBEAT_MS = eventsEnv.heartbeatMs;
/** How often one watcher per task and process looks for events appended by other processes. */
export const POLL_MS = 50;

/** Tells a task's streams in this process that its feed moved. */
const fed = new EventEmitter().setMaxListeners(0);
const BUFFER = 2000;
/**
 * How long a reader waits for a missing offset below the task's next one before passing over it. Longer than
 * the row writer's resends of rows DynamoDB left unprocessed (about 13 s), so only an append that failed after
 * taking its offset (its producer died, or its event was refused) leaves a reader waiting this long.
 */
export const MISSING_EVENT_WAIT_MS = 15_000;

/**
 * Which rows of a read a reader may deliver. An append takes its offset from the task row, then stores its
 * event row with a separate request, so with concurrent appenders a later offset's row can land before an
 * earlier one's. A missing offset is passed over at once only when it is trimmed (below the oldest retained
 * event); otherwise the reader stops before it and reads again, until the row lands or the wait runs out.
 */
class Contiguous {
  private missing: { offset: number; since: number } | undefined;

  constructor(private readonly store: TaskEvents) {}

  /**
   * The rows read from `from` on that can be delivered now, and the offset to read next. `complete` says the
   * read returned every row from `from` on, so offsets between the last row and the task's next offset are
   * missing too.
   */
  take(
    rows: TaskEvent[],
    from: number,
    record: TaskRecord | undefined,
    complete: boolean,
  ): { events: TaskEvent[]; next: number } {
    const oldest = record ? this.store.oldestRetained(record) : from;
    const events: TaskEvent[] = [];
    let next = from;
    for (const row of rows) {
      if (row.offset > next && !this.passable(next, row.offset, oldest)) return { events, next };
      events.push(row);
      next = row.offset + 1;
    }
    if (complete && record && next < record.next_offset && this.passable(next, record.next_offset, oldest)) {
      next = record.next_offset;
    }
    return { events, next };
  }

  /** Whether the offsets from `first` up to `end` (excluded), none of them stored, can be passed over. */
  private passable(first: number, end: number, oldest: number): boolean {
    if (end <= oldest) return true;
    const awaited = Math.max(first, oldest);
    const now = Date.now();
    if (this.missing?.offset !== awaited) this.missing = { offset: awaited, since: now };
    return now - this.missing.since >= MISSING_EVENT_WAIT_MS;
  }
}

/**
 * One feed per task in this process, however many streams read it: it polls the task's new events and its
 * row, keeps the recent events in memory and wakes the streams, so a hundred readers cost one poll.
 */
class TaskFeed {
  readers = 0;
  record: TaskRecord | undefined;
  polled = false;
  error: unknown;
  /** Buffered events in offset order; offsets passed over (trimmed or lost) leave holes. */
  private events: TaskEvent[] = [];
  private start: number;
  private next: number;
  private running = true;
  /** The task's offset, end and condition as the last poll saw them. */
  private seen = '';
  private readonly rows: Contiguous;

  constructor(
    private readonly store: TaskEvents,
    private readonly taskId: string,
    from: number,
  ) {
    this.start = from;
    this.next = from;
    this.rows = new Contiguous(store);
    void this.loop();
  }

  /**
   * Buffered events from `offset` on, with the offset a reader that delivered them goes on from; undefined
   * when `offset` is older than the buffer.
   */
  since(offset: number): { events: TaskEvent[]; next: number } | undefined {
    if (offset < this.start) return undefined;
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.events[middle]!.offset < offset) low = middle + 1;
      else high = middle;
    }
    return { events: this.events.slice(low), next: Math.max(offset, this.next) };
  }

  stop(): void {
    this.running = false;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let full = false;
      // The poll period counts from the start of a read: the reads' own time does not add to the delay.
      const started = Date.now();
      try {
        const from = this.next;
        const fresh = await this.store.read(this.taskId, from, 500);
        // What the last poll saw, not the last record judged again now: a lease that lapsed between two
        // polls of an unchanged record is a change the streams must hear of.
        const before = this.seen;
        this.record = await this.store.get(this.taskId);
        const after = this.record
          ? `${this.record.next_offset}|${this.record.ended}|${this.store.condition(this.record)}`
          : 'gone';
        this.seen = after;
        this.error = undefined;
        const { events, next } = this.rows.take(fresh, from, this.record, fresh.length < 500);
        this.events.push(...events);
        this.next = next;
        if (this.events.length > BUFFER) {
          this.events = this.events.slice(this.events.length - BUFFER);
          this.start = this.events[0]!.offset;
        }
        full = events.length === 500;
        if (next !== from || before !== after || !this.polled) {
          this.polled = true;
          fed.emit(this.taskId);
        }
      } catch (error) {
        this.error = error;
        this.polled = true;
        fed.emit(this.taskId);
      }
      if (!full) await wake(appended, this.taskId, undefined, Math.max(0, POLL_MS - (Date.now() - started)));
    }
  }
}

const feeds = new Map<string, TaskFeed>();

function feedOf(store: TaskEvents, taskId: string, from: number): { feed: TaskFeed; release: () => void } {
  let feed = feeds.get(taskId);
  if (!feed) {
    feed = new TaskFeed(store, taskId, from);
    feeds.set(taskId, feed);
  }
  feed.readers++;
  const current = feed;
  return {
    feed: current,
    release: () => {
      current.readers--;
      if (current.readers === 0) {
        current.stop();
        feeds.delete(taskId);
      }
    },
  };
}

/** Waits for `emitter` to name the task, the time to pass, or the signal to abort. */
function wake(
  emitter: EventEmitter,
  taskId: string,
  signal: AbortSignal | undefined,
  ms: number,
): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      emitter.off(taskId, done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    emitter.on(taskId, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * What the last frame of a stream that is over for good (its task ended or stopped, or it has no queue)
 * asks of a client that reconnects anyway: wait an hour. Such a reconnect (`Last-Event-ID` at the task's
 * last event) is then answered 204, which makes an `EventSource` stop for good.
 */
export const ENDED_RETRY_MS = 3_600_000;

export interface StreamRequest {
  taskId: string;
  kind: TaskKind;
  fromOffset?: number;
  lastEventId?: string;
  /** Opens the stream; called once the request is known good (before it, failures answer with a status). */
  open(): SseStream;
  /**
   * Answers 204 instead of a stream: a client reconnecting after the last event of a task that is over.
   * Without it, such a client is given a stream holding only the `end` frame.
   */
  noContent?(): void;
}

/** What failed, for a `stream_error` frame: the store's own failure when it did not answer. */
function failureName(error: unknown): string {
  const failure =
    error instanceof TaskEventsUnavailableError && error.cause instanceof Error ? error.cause : error;
  return (failure as Error).name || 'Error';
}

/** A task whose stream has nothing more to say: it ended, or stopped for good (an interrupted one resumes). */
const isOver = (store: TaskEvents, record: TaskRecord) => {
  const state = store.condition(record);
  return state === 'ended' || state === 'stopped';
};

/**
 * The last frame of a stream that is over for good: a client closes on it instead of reconnecting.
 * `next_offset` is where the task's events end.
 */
const endFrame = (taskId: string, outcome: 'ended' | 'stopped' | 'gone', nextOffset: number) => ({
  type: 'end' as const,
  task_id: taskId,
  outcome,
  next_offset: nextOffset,
});

export async function streamTask(
  store: TaskEvents,
  request: StreamRequest,
  heartbeatMs = HEARTBEAT_MS,
): Promise<void> {
  const { taskId } = request;
  // A store that does not answer fails the request here, before any stream starts (503).
  const record = await store.get(taskId);
  // A reconnect resumes after the last event it saw, whatever offset the URL it reconnects to names (an
  // EventSource reconnects to the URL it was opened with, `from_offset` included).
  const resumeAt =
    request.lastEventId !== undefined && /^\d+$/.test(request.lastEventId)
      ? Number(request.lastEventId) + 1
      : undefined;
  let offset = resumeAt ?? request.fromOffset ?? 0;
  const known = record !== undefined && record.kind === request.kind;
  const over = !known || (resumeAt !== undefined && resumeAt >= record.next_offset && isOver(store, record));
  if (resumeAt !== undefined && over && request.noContent) {
    request.noContent();
    return;
  }
  if (record && offset > record.next_offset) {
    const header = resumeAt !== undefined;
    throw new ValidationError([
      {
        type: 'less_than_equal',
        loc: header ? ['header', 'last-event-id'] : ['query', 'from_offset'],
        msg: `${header ? 'Last-Event-ID' : 'from_offset'} ${header ? offset - 1 : offset} is past the end of task ${taskId}, whose next offset is ${record.next_offset}`,
        input: header ? request.lastEventId : offset,
      },
    ]);
  }
  const sink = request.open();
  if (!known) {
    await sink.event(
      { type: 'error', message: `No active queue for task ${taskId}` },
      undefined,
      ENDED_RETRY_MS,
    );
    return;
  }
  offset = Math.max(offset, store.oldestRetained(record));
  await sink.event({ type: 'connected', task_id: taskId, offset, timestamp: new Date().toISOString() });

  const subscriber = randomUUID();
  const { feed, release } = feedOf(store, taskId, offset);
  const replay = new Contiguous(store);
  let idleSince = Date.now();
  let subscribedAt = 0;
  /** Whether the reader was told that the task's producer stopped reporting and the task will resume. */
  let toldInterrupted = false;
  try {
    while (!sink.closed) {
      if (Date.now() - subscribedAt > 10_000) {
        await store.subscribe(taskId, subscriber);
        subscribedAt = Date.now();
      }
      // Recent events come from the shared feed; older ones (a replay) from the store.
      const buffered = feed.since(offset);
      const { events, next } =
        buffered ?? replay.take(await store.read(taskId, offset), offset, feed.record ?? record, false);
      for (const event of events) {
        await sink.event(event, event.offset);
        offset = event.offset + 1;
      }
      offset = Math.max(offset, next);
      if (events.length > 0) {
        idleSince = Date.now();
        continue;
      }
      if (feed.error) throw feed.error;
      const current = feed.polled ? feed.record : await store.get(taskId);
      if (!current) {
        await sink.event(endFrame(taskId, 'gone', offset), undefined, ENDED_RETRY_MS);
        break;
      }
      const state = store.condition(current);
      if (offset >= current.next_offset && state === 'ended') {
        await sink.event(endFrame(taskId, 'ended', offset), undefined, ENDED_RETRY_MS);
        break;
      }
      if (offset >= current.next_offset && state === 'stopped') {
        await sink.event({ type: 'error', message: `Task ${taskId} stopped reporting before it finished` });
        await sink.event(endFrame(taskId, 'stopped', offset), undefined, ENDED_RETRY_MS);
        break;
      }
      // A resumable task whose worker died: the stream stays open, and the events of the worker that takes
      // the task up again follow.
      if (offset >= current.next_offset && state === 'interrupted' && !toldInterrupted) {
        await sink.event({
          type: 'interrupted',
          task_id: taskId,
          message: `The worker of task ${taskId} is gone; the task resumes when its queue delivers it again`,
        });
        toldInterrupted = true;
      }
      if (state === 'active') toldInterrupted = false;
      if (Date.now() - idleSince >= heartbeatMs) {
        await sink.comment('heartbeat');
        idleSince = Date.now();
      }
      // The feed may have announced new events while the store was read above: deliver them, not wait.
      if ((feed.since(offset)?.events ?? []).length > 0) continue;
      // A replay waiting for a missing row reads the store again soon: the feed only announces newer events.
      const idleLeft = Math.max(1, heartbeatMs - (Date.now() - idleSince));
      await wake(fed, taskId, sink.signal, buffered ? idleLeft : Math.min(POLL_MS, idleLeft));
    }
  } catch (error) {
    if (!sink.closed) {
      await sink.event({
        type: 'stream_error',
        message: 'The task event store stopped answering; reconnect with Last-Event-ID to resume.',
        failure: failureName(error),
      });
    }
  } finally {
    release();
    await store.unsubscribe(taskId, subscriber).catch(() => undefined);
  }
}
