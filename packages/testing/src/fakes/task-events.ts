/**
 * An in-memory task event store with the semantics of the DynamoDB adapter: contiguous offsets per task
 * in the order appends are made, nothing after a terminal event, cancellations answered on every append,
 * leases taken over only from their holder or once lapsed, a workflow's 1,000-event window and its 30
 * minutes of retention after it ended, and subscribers counted while their lease lives.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError } from '@tessera/core';
import {
  type AppendResult,
  alreadyFinished,
  appended,
  byAge,
  cancelAnswer,
  cancelEach,
  checkCancellable,
  ENDED_RETENTION_MS,
  type EventBody,
  expired,
  isActive,
  isTerminal,
  newTask,
  noQueue,
  type OpenTask,
  oldestRetained,
  queueInfo,
  SUBSCRIBER_LEASE_MS,
  type TaskCondition,
  type TaskEvent,
  type TaskEvents,
  type TaskKind,
  type TaskRecord,
  taskCondition,
  WORKFLOW_WINDOW,
} from '@tessera/events';

const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryTaskEvents implements TaskEvents {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly events = new Map<string, Map<number, TaskEvent>>();

  constructor(private readonly now: () => number = Date.now) {}

  async open(task: OpenTask) {
    if (this.tasks.has(task.task_id)) throw new ConflictError(`Task ${task.task_id} already exists`);
    const record = newTask(task, this.now());
    this.tasks.set(task.task_id, record);
    this.events.set(task.task_id, new Map());
    return copy(record);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.tasks.get(taskId);
    return record && !expired(record, this.now()) ? copy(record) : undefined;
  }

  oldestRetained(record: TaskRecord): number {
    return oldestRetained(record);
  }

  condition(record: TaskRecord): TaskCondition {
    return taskCondition(record, this.now());
  }

  async append(taskId: string, body: EventBody): Promise<AppendResult & { event: TaskEvent }> {
    const record = this.tasks.get(taskId);
    if (!record || record.ended) throw new ConflictError(`Task ${taskId} is unknown or has already ended`);
    const at = this.now();
    const event = {
      ...copy(body),
      task_id: taskId,
      tenant_id: record.tenant_id,
      event_id: randomUUID(),
      timestamp: new Date(at).toISOString(),
      offset: record.next_offset++,
    } as TaskEvent;
    const rows = this.events.get(taskId)!;
    rows.set(event.offset, event);
    if (isTerminal(body)) {
      record.ended = true;
      record.ended_at = at;
      if (record.kind === 'workflow') record.expires_at = Math.ceil((at + ENDED_RETENTION_MS) / 1000);
    }
    if (record.kind === 'workflow' && record.next_offset > WORKFLOW_WINDOW) {
      const oldest = record.next_offset - WORKFLOW_WINDOW;
      for (const offset of rows.keys()) if (offset < oldest) rows.delete(offset);
      record.first_offset = Math.max(record.first_offset, oldest);
    }
    appended.emit(taskId);
    return {
      offset: event.offset,
      cancelled: record.cancel_requested,
      reason: record.cancel_reason,
      event: copy(event),
    };
  }

  async read(taskId: string, from: number, limit = 500): Promise<TaskEvent[]> {
    const rows = this.events.get(taskId);
    if (!rows) return [];
    return [...rows.values()]
      .filter((event) => event.offset >= Math.max(0, from))
      .sort((a, b) => a.offset - b.offset)
      .slice(0, limit)
      .map(copy);
  }

  renew(taskId: string, owner: string, leaseMs: number) {
    return this.takeOver(taskId, owner, owner, leaseMs);
  }

  async takeOver(taskId: string, from: string, owner: string, leaseMs: number) {
    const record = this.tasks.get(taskId);
    const now = this.now();
    if (!record || record.ended || (record.lease_owner !== from && record.lease_expires_at > now))
      return undefined;
    record.lease_owner = owner;
    record.lease_expires_at = now + leaseMs;
    return { cancelled: record.cancel_requested, reason: record.cancel_reason };
  }

  async cancel(taskId: string, kind: TaskKind, reason: string) {
    checkCancellable(await this.get(taskId), taskId, kind, this.now());
    const record = this.tasks.get(taskId);
    if (!record || record.ended) throw alreadyFinished(taskId, kind);
    record.cancel_requested = true;
    record.cancel_reason ??= reason;
    return cancelAnswer(taskId, kind);
  }

  async active(tenantId: string): Promise<TaskRecord[]> {
    const now = this.now();
    return [...this.tasks.values()]
      .filter((record) => record.tenant_id === tenantId && isActive(record, now))
      .sort(byAge)
      .map(copy);
  }

  async tenantTasks(tenantId: string): Promise<TaskRecord[]> {
    const now = this.now();
    return [...this.tasks.values()]
      .filter((record) => record.tenant_id === tenantId && !expired(record, now))
      .sort(byAge)
      .map(copy);
  }

  async expireEnded(taskId: string): Promise<void> {
    const record = this.tasks.get(taskId);
    if (!record?.ended) return;
    const expires = Math.ceil((this.now() + ENDED_RETENTION_MS) / 1000);
    if (record.expires_at === undefined || record.expires_at > expires) record.expires_at = expires;
  }

  async cancelTenant(tenantId: string, reason: string): Promise<string[]> {
    return cancelEach(this, await this.active(tenantId), reason);
  }

  async subscribe(taskId: string, subscriberId: string, leaseMs = SUBSCRIBER_LEASE_MS): Promise<void> {
    const record = this.tasks.get(taskId);
    if (record) record.subscribers = { ...record.subscribers, [subscriberId]: this.now() + leaseMs };
  }

  async unsubscribe(taskId: string, subscriberId: string): Promise<void> {
    const record = this.tasks.get(taskId);
    if (record?.subscribers) delete record.subscribers[subscriberId];
  }

  async sweepExpired(): Promise<string[]> {
    const now = Math.floor(this.now() / 1000);
    const swept: string[] = [];
    for (const [taskId, record] of this.tasks) {
      if (record.expires_at === undefined || record.expires_at > now) continue;
      this.tasks.delete(taskId);
      this.events.delete(taskId);
      swept.push(taskId);
    }
    return swept;
  }

  async info(taskId: string) {
    const record = await this.get(taskId);
    if (!record) throw noQueue(taskId);
    return queueInfo(record, this.now());
  }
}
