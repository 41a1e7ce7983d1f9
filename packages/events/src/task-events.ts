/**
 * The task event port: the shared store any runtime process or Lambda serves any task from. Per task an
 * offset counter, a producer lease, a cancellation and stream subscribers; per event a row keyed by its
 * offset. A workflow keeps its newest 1,000 events, and its record 30 minutes after it ended. The rules
 * that do not touch storage (retention, conditions, cancel refusals, queue info) are functions here, which
 * every implementation answers with.
 */
import { EventEmitter } from 'node:events';
import { ConflictError, NotFoundError } from '@tessera/core';
import type { EventBody, TaskEvent, TaskKind } from './model';

/** A workflow keeps its newest 1,000 events. */
export const WORKFLOW_WINDOW = 1000;
/** An ended workflow keeps its events for 30 minutes after its last one. */
export const ENDED_RETENTION_MS = 30 * 60_000;
export const PRODUCER_LEASE_MS = 30_000;
export const SUBSCRIBER_LEASE_MS = 30_000;
export const QUEUED_INGESTION_LEASE_MS = 6 * 3600_000;

export interface TaskRecord {
  task_id: string;
  kind: TaskKind;
  tenant_id: string;
  created_at: number;
  next_offset: number;
  first_offset: number;
  ended: boolean;
  ended_at?: number;
  lease_owner: string;
  lease_expires_at: number;
  cancel_requested: boolean;
  cancel_reason?: string;
  /**
   * Whether a producer that stops reporting leaves the task to be resumed (an ingestion job, which its
   * queue delivers again) rather than stopped for good (a workflow run, which lives in one request).
   */
  resumable?: boolean;
  subscribers?: Record<string, number>;
  /** Epoch seconds after which the task and its events are gone (an ended workflow's retention). */
  expires_at?: number;
}

/**
 * `active`: a producer holds the lease; `ended`: a terminal event came; `stopped`: the lease lapsed and
 * nobody will resume the task (its stream ends, a cancel is refused); `interrupted`: the lease of a
 * resumable task lapsed (its worker died) and a worker will take it up again (its stream waits, a cancel
 * is recorded and ends it when it is taken up).
 */
export type TaskCondition = 'active' | 'ended' | 'stopped' | 'interrupted';

export interface AppendResult {
  offset: number;
  cancelled: boolean;
  reason?: string;
}

export interface Cancelled {
  task_id: string;
  cancelled: true;
  message: string;
}

export interface OpenTask {
  task_id: string;
  kind: TaskKind;
  tenant_id: string;
  owner: string;
  leaseMs: number;
  /** A producer that stops reporting leaves the task to be resumed (see `TaskRecord.resumable`). */
  resumable?: boolean;
}

/** The record of a task being opened. */
export function newTask(task: OpenTask, now: number): TaskRecord {
  return {
    task_id: task.task_id,
    kind: task.kind,
    tenant_id: task.tenant_id,
    created_at: now,
    next_offset: 0,
    first_offset: 0,
    ended: false,
    lease_owner: task.owner,
    lease_expires_at: now + task.leaseMs,
    cancel_requested: false,
    ...(task.resumable ? { resumable: true } : {}),
    subscribers: {},
  };
}

export interface TaskEvents {
  /** Registers a task; ids are never reused (409). */
  open(task: OpenTask): Promise<TaskRecord>;
  /** The task, unless unknown or past its retention. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** The oldest offset the task keeps: events below it are trimmed, or about to be. */
  oldestRetained(record: TaskRecord): number;
  condition(record: TaskRecord): TaskCondition;
  /**
   * Appends an event at the next offset; answers the offset and the task's cancellation. Appends to one
   * task take contiguous offsets in the order they were made, up to and including a terminal event: what
   * comes after it is refused (409).
   */
  append(taskId: string, body: EventBody): Promise<AppendResult & { event: TaskEvent }>;
  /** Events from `from` on, at most `limit` (a reader behind the retained window starts at its oldest). */
  read(taskId: string, from: number, limit?: number): Promise<TaskEvent[]>;
  /** Renews the producer's lease; answers the cancellation, or undefined when the lease was lost. */
  renew(
    taskId: string,
    owner: string,
    leaseMs: number,
  ): Promise<{ cancelled: boolean; reason?: string } | undefined>;
  /**
   * Hands a task's lease to `owner`: from `from` (the lease a queued ingestion job waits under), or from
   * anyone once their lease lapsed (a worker that crashed). Undefined when someone else holds it or it ended.
   */
  takeOver(
    taskId: string,
    from: string,
    owner: string,
    leaseMs: number,
  ): Promise<{ cancelled: boolean; reason?: string } | undefined>;
  /** Records a cancellation; the first reason stays. 404 unknown (or of another kind), 409 ended or stopped. */
  cancel(taskId: string, kind: TaskKind, reason: string): Promise<Cancelled>;
  /** Running or queued tasks of a tenant (canonical id), oldest first. */
  active(tenantId: string): Promise<TaskRecord[]>;
  /** Every task of a tenant still retained, ended or not, oldest first. */
  tenantTasks(tenantId: string): Promise<TaskRecord[]>;
  /**
   * Has an ended task forgotten 30 minutes from now, as an ended workflow is (its readers see its end first),
   * unless it goes sooner; a task not ended is left alone.
   */
  expireEnded(taskId: string): Promise<void>;
  /** Records a cancellation on every running or queued task of a tenant, oldest first. */
  cancelTenant(tenantId: string, reason: string): Promise<string[]>;
  /** Registers (or renews) a stream reader, leased `leaseMs` past now. */
  subscribe(taskId: string, subscriberId: string, leaseMs?: number): Promise<void>;
  unsubscribe(taskId: string, subscriberId: string): Promise<void>;
  /** Deletes tasks whose retention ended, with their events; answers their ids. */
  sweepExpired(): Promise<string[]>;
  /** The queue info of document 3, while the task's events are retained (404 after). */
  info(taskId: string): Promise<ReturnType<typeof queueInfo>>;
}

/** Appends made in this process, so its own streams deliver at once instead of at their next poll. */
export const appended = new EventEmitter().setMaxListeners(0);

export function oldestRetained(record: TaskRecord): number {
  return record.kind === 'workflow'
    ? Math.max(record.first_offset, record.next_offset - WORKFLOW_WINDOW)
    : record.first_offset;
}

export function taskCondition(record: TaskRecord, now: number): TaskCondition {
  if (record.ended) return 'ended';
  if (record.lease_expires_at > now) return 'active';
  return record.resumable ? 'interrupted' : 'stopped';
}

/** A running or queued task of its tenant: not ended, and worked, waiting or to be resumed. */
export const isActive = (record: TaskRecord, now: number) =>
  !record.ended && (record.lease_expires_at > now || record.resumable === true);

/** Whether a stored record is past its retention: DynamoDB deletes expired rows late, emulators never. */
export const expired = (record: TaskRecord, now: number) =>
  record.expires_at !== undefined && record.expires_at * 1000 <= now;

const noun = (kind: TaskKind) => (kind === 'workflow' ? 'Workflow' : 'Ingestion job');

/** Refuses a cancel of an unknown, finished or stopped task with the spec's messages. */
export function checkCancellable(
  record: TaskRecord | undefined,
  taskId: string,
  kind: TaskKind,
  now: number,
): void {
  if (!record || record.kind !== kind) {
    throw new NotFoundError(
      `No active ${kind === 'workflow' ? 'workflow' : 'ingestion job'} found with ID ${taskId}`,
    );
  }
  const state = taskCondition(record, now);
  if (state === 'ended') throw alreadyFinished(taskId, kind);
  if (state === 'stopped')
    throw new ConflictError(`${noun(kind)} ${taskId} stopped reporting before it finished`);
}

export const alreadyFinished = (taskId: string, kind: TaskKind) =>
  new ConflictError(`${noun(kind)} ${taskId} already finished`);

export const cancelAnswer = (taskId: string, kind: TaskKind): Cancelled => ({
  task_id: taskId,
  cancelled: true,
  message: `${noun(kind)} ${taskId} cancellation requested`,
});

/** Cancels each task in turn, skipping those that ended or vanished meanwhile. */
export async function cancelEach(
  events: Pick<TaskEvents, 'cancel'>,
  tasks: TaskRecord[],
  reason: string,
): Promise<string[]> {
  const cancelled: string[] = [];
  for (const task of tasks) {
    try {
      await events.cancel(task.task_id, task.kind, reason);
      cancelled.push(task.task_id);
    } catch (error) {
      if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
    }
  }
  return cancelled;
}

/** Oldest first, ties by id. */
export const byAge = (a: TaskRecord, b: TaskRecord) =>
  a.created_at - b.created_at || a.task_id.localeCompare(b.task_id);

export function queueInfo(record: TaskRecord, now: number) {
  return {
    task_id: record.task_id,
    kind: record.kind,
    tenant_id: record.tenant_id,
    event_count: record.next_offset - record.first_offset,
    subscriber_count: Object.values(record.subscribers ?? {}).filter((until) => until > now).length,
    is_closed: record.ended,
    is_cancelled: record.cancel_requested,
    created_at: new Date(record.created_at).toISOString(),
  };
}

export const noQueue = (taskId: string) => new NotFoundError(`No queue found for task ${taskId}`);
