/**
 * The DynamoDB adapter of the task event store. A task row holds the offset counter, lease, cancellation
 * and subscribers; each event is a row keyed by its offset. Offsets come from an atomic counter, so
 * concurrent appenders never share one, and every append answers the task's cancellation. Event rows of
 * concurrent appends are written together (see dynamo-rows.ts). Reads of a task and cancellations that get
 * no answer throw `TaskEventsUnavailableError` (document 3's 503).
 */
import { randomUUID } from 'node:crypto';
import {
  type DynamoDBClient,
  QueryCommand as QueryItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '@tessera/core';
import { conditional, documentClient, dynamoClient, resourceName, tables } from '@tessera/platform';
import { EventRowWriter } from './dynamo-rows';
import { type EventBody, isTerminal, type TaskEvent, type TaskKind } from './model';
import {
  type AppendResult,
  alreadyFinished,
  appended,
  byAge,
  cancelAnswer,
  cancelEach,
  checkCancellable,
  ENDED_RETENTION_MS,
  expired,
  newTask,
  noQueue,
  type OpenTask,
  oldestRetained,
  queueInfo,
  SUBSCRIBER_LEASE_MS,
  type TaskCondition,
  type TaskEvents,
  type TaskRecord,
  taskCondition,
  WORKFLOW_WINDOW,
} from './task-events';
import { unanswered } from './unavailable';

const pad = (offset: number) => String(offset).padStart(12, '0');

interface PendingAppend {
  body: EventBody;
  at: number;
  resolve: (result: AppendResult & { event: TaskEvent }) => void;
  reject: (error: unknown) => void;
}

export class DynamoTaskEvents implements TaskEvents {
  private readonly queues = resourceName(tables.taskQueues);
  private readonly events = resourceName(tables.taskEvents);
  private readonly rows: EventRowWriter;
  /** Per task with an offset update in flight, the appends waiting to take theirs next. */
  private readonly queued = new Map<string, PendingAppend[]>();

  constructor(
    private readonly client: DynamoDBDocumentClient = documentClient(),
    private readonly now: () => number = Date.now,
    /** The plain client of the hot paths (offsets, event rows, reads), which marshal their own items. */
    private readonly items: DynamoDBClient = dynamoClient(),
  ) {
    this.rows = new EventRowWriter(items, this.events);
  }

  async open(task: OpenTask): Promise<TaskRecord> {
    const record = newTask(task, this.now());
    const stored = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.queues,
          Item: record,
          ConditionExpression: 'attribute_not_exists(task_id)',
        }),
      ),
    );
    if (!stored) throw new ConflictError(`Task ${task.task_id} already exists`);
    return record;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const { Item } = await this.client
      .send(new GetCommand({ TableName: this.queues, Key: { task_id: taskId }, ConsistentRead: true }))
      .catch(unanswered(taskId));
    const record = Item as TaskRecord | undefined;
    // Expired rows may outlive their TTL (DynamoDB deletes late, emulators never): they are gone.
    return record && !expired(record, this.now()) ? record : undefined;
  }

  oldestRetained(record: TaskRecord): number {
    return oldestRetained(record);
  }

  condition(record: TaskRecord): TaskCondition {
    return taskCondition(record, this.now());
  }

  /**
   * Appends an event at the next offset; answers the offset and the task's cancellation. Appends to one task
   * made while its offset update is in flight wait and take their offsets together with the next one (one
   * `ADD next_offset :n`, contiguous offsets in the order they were made), up to and including a terminal
   * event: what comes after it is refused.
   */
  append(taskId: string, body: EventBody): Promise<AppendResult & { event: TaskEvent }> {
    return new Promise((resolve, reject) => {
      const append: PendingAppend = { body, at: this.now(), resolve, reject };
      const queue = this.queued.get(taskId);
      if (queue) {
        queue.push(append);
        return;
      }
      this.queued.set(taskId, []);
      void this.appendTogether(taskId, [append]);
    });
  }

  /** Takes offsets for `group`, lets the appends that queued meanwhile go, then stores the group's events. */
  private async appendTogether(taskId: string, group: PendingAppend[]): Promise<void> {
    let record: TaskRecord | undefined;
    try {
      record = await this.takeOffsets(taskId, group);
    } catch (error) {
      for (const append of group) append.reject(error);
    }
    const queue = this.queued.get(taskId)!;
    if (queue.length === 0) this.queued.delete(taskId);
    else {
      const terminal = queue.findIndex((append) => isTerminal(append.body));
      void this.appendTogether(taskId, queue.splice(0, terminal < 0 ? queue.length : terminal + 1));
    }
    if (record) await this.storeEvents(taskId, record, group);
  }

  /** Stores the events of a group of appends that took offsets up to `taken.next_offset`, and answers them. */
  private async storeEvents(taskId: string, taken: TaskRecord, group: PendingAppend[]): Promise<void> {
    const first = taken.next_offset - group.length;
    const last = group[group.length - 1]!;
    const ended = taken.kind === 'workflow' && isTerminal(last.body);
    const expires = ended ? Math.ceil((last.at + ENDED_RETENTION_MS) / 1000) : undefined;
    const events = group.map(
      (append, i) =>
        ({
          ...append.body,
          task_id: taskId,
          tenant_id: taken.tenant_id,
          event_id: randomUUID(),
          timestamp: new Date(append.at).toISOString(),
          offset: first + i,
        }) as TaskEvent,
    );
    const stored = await Promise.allSettled(
      events.map((event) =>
        this.rows.put({
          task_id: taskId,
          offset_key: pad(event.offset),
          event: JSON.stringify(event),
          ...(expires ? { expires_at: expires } : {}),
        }),
      ),
    );
    appended.emit(taskId);
    let kept: unknown;
    try {
      if (taken.kind === 'workflow' && taken.next_offset > WORKFLOW_WINDOW)
        await this.trim(taskId, first, taken.next_offset);
      if (expires) await this.expire(taskId, expires);
    } catch (error) {
      kept = error;
    }
    group.forEach((append, i) => {
      const outcome = stored[i]!;
      if (outcome.status === 'rejected') append.reject(outcome.reason);
      else if (kept) append.reject(kept);
      else
        append.resolve({
          offset: events[i]!.offset,
          cancelled: taken.cancel_requested,
          reason: taken.cancel_reason,
          event: events[i]!,
        });
    });
  }

  /** Takes the next offsets for a group of appends, the last of which may end the task. */
  private async takeOffsets(taskId: string, group: PendingAppend[]): Promise<TaskRecord> {
    const terminal = isTerminal(group[group.length - 1]!.body);
    const updated = await conditional(() =>
      this.items.send(
        new UpdateItemCommand({
          TableName: this.queues,
          Key: marshall({ task_id: taskId }),
          UpdateExpression: `ADD next_offset :count${terminal ? ' SET ended = :true, ended_at = :now' : ''}`,
          ConditionExpression: 'attribute_exists(task_id) AND ended = :false',
          ExpressionAttributeValues: marshall({
            ':count': group.length,
            ':false': false,
            ...(terminal ? { ':true': true, ':now': group[group.length - 1]!.at } : {}),
          }),
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    if (!updated?.Attributes) throw new ConflictError(`Task ${taskId} is unknown or has already ended`);
    return unmarshall(updated.Attributes) as TaskRecord;
  }

  /** Keeps a workflow's newest 1,000 events, once offsets `from` up to `next` (excluded) were taken. */
  private async trim(taskId: string, from: number, next: number): Promise<void> {
    const oldest = next - WORKFLOW_WINDOW;
    await Promise.all(
      Array.from({ length: Math.min(next - from, oldest) }, (_, i) =>
        this.rows.remove({ task_id: taskId, offset_key: pad(oldest - 1 - i) }),
      ),
    );
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.queues,
          Key: { task_id: taskId },
          UpdateExpression: 'SET first_offset = :first',
          ConditionExpression: 'first_offset < :first',
          ExpressionAttributeValues: { ':first': oldest },
        }),
      ),
    );
  }

  /** An ended workflow's task expires 30 minutes after its last event; its events go with it for readers. */
  private async expire(taskId: string, expires: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.queues,
        Key: { task_id: taskId },
        UpdateExpression: 'SET expires_at = :expires',
        ExpressionAttributeValues: { ':expires': expires },
      }),
    );
  }

  /** Events from `from` on (a reader behind the retained window starts at the oldest retained one). */
  async read(taskId: string, from: number, limit = 500): Promise<TaskEvent[]> {
    const { Items } = await this.items.send(
      new QueryItemsCommand({
        TableName: this.events,
        KeyConditionExpression: 'task_id = :task AND offset_key >= :from',
        ExpressionAttributeValues: { ':task': { S: taskId }, ':from': { S: pad(Math.max(0, from)) } },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => JSON.parse(String(item.event?.S)) as TaskEvent);
  }

  /** Renews the producer's lease; answers the cancellation, or undefined when the lease was lost. */
  renew(
    taskId: string,
    owner: string,
    leaseMs: number,
  ): Promise<{ cancelled: boolean; reason?: string } | undefined> {
    return this.takeOver(taskId, owner, owner, leaseMs);
  }

  /**
   * Hands a task's lease to `owner`: from `from` (the lease a queued ingestion job waits under), or from
   * anyone once their lease lapsed (a worker that crashed). Undefined when someone else holds it or it ended.
   */
  async takeOver(
    taskId: string,
    from: string,
    owner: string,
    leaseMs: number,
  ): Promise<{ cancelled: boolean; reason?: string } | undefined> {
    const updated = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.queues,
          Key: { task_id: taskId },
          UpdateExpression: 'SET lease_expires_at = :until, lease_owner = :owner',
          ConditionExpression: 'ended = :false AND (lease_owner = :from OR lease_expires_at <= :now)',
          ExpressionAttributeValues: {
            ':until': this.now() + leaseMs,
            ':owner': owner,
            ':from': from,
            ':false': false,
            ':now': this.now(),
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    if (!updated) return undefined;
    const record = updated.Attributes as TaskRecord;
    return { cancelled: record.cancel_requested, reason: record.cancel_reason };
  }

  async cancel(taskId: string, kind: TaskKind, reason: string) {
    checkCancellable(await this.get(taskId), taskId, kind, this.now());
    const updated = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.queues,
          Key: { task_id: taskId },
          UpdateExpression:
            'SET cancel_requested = :true, cancel_reason = if_not_exists(cancel_reason, :reason)',
          ConditionExpression: 'ended = :false',
          ExpressionAttributeValues: { ':true': true, ':false': false, ':reason': reason },
        }),
      ),
    ).catch(unanswered(taskId));
    if (!updated) throw alreadyFinished(taskId, kind);
    return cancelAnswer(taskId, kind);
  }

  async active(tenantId: string): Promise<TaskRecord[]> {
    const found: TaskRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client
        .send(
          new ScanCommand({
            TableName: this.queues,
            FilterExpression:
              'tenant_id = :tenant AND ended = :false AND (lease_expires_at > :now OR resumable = :true)',
            ExpressionAttributeValues: {
              ':tenant': tenantId,
              ':false': false,
              ':true': true,
              ':now': this.now(),
            },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        )
        .catch(unanswered());
      found.push(...((page.Items ?? []) as TaskRecord[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return found.sort(byAge);
  }

  async tenantTasks(tenantId: string): Promise<TaskRecord[]> {
    const found: TaskRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client
        .send(
          new ScanCommand({
            TableName: this.queues,
            FilterExpression: 'tenant_id = :tenant',
            ExpressionAttributeValues: { ':tenant': tenantId },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        )
        .catch(unanswered());
      found.push(...((page.Items ?? []) as TaskRecord[]).filter((record) => !expired(record, this.now())));
      start = page.LastEvaluatedKey;
    } while (start);
    return found.sort(byAge);
  }

  async expireEnded(taskId: string): Promise<void> {
    const expires = Math.ceil((this.now() + ENDED_RETENTION_MS) / 1000);
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.queues,
          Key: { task_id: taskId },
          UpdateExpression: 'SET expires_at = :expires',
          ConditionExpression:
            'ended = :true AND (attribute_not_exists(expires_at) OR expires_at > :expires)',
          ExpressionAttributeValues: { ':expires': expires, ':true': true },
        }),
      ),
    );
  }

  async cancelTenant(tenantId: string, reason: string): Promise<string[]> {
    return cancelEach(this, await this.active(tenantId), reason);
  }

  /** Registers (or renews) a stream reader, leased `leaseMs` past this read. */
  async subscribe(taskId: string, subscriberId: string, leaseMs = SUBSCRIBER_LEASE_MS): Promise<void> {
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.queues,
          Key: { task_id: taskId },
          UpdateExpression: 'SET subscribers.#id = :until',
          ConditionExpression: 'attribute_exists(task_id)',
          ExpressionAttributeNames: { '#id': subscriberId },
          ExpressionAttributeValues: { ':until': this.now() + leaseMs },
        }),
      ),
    );
  }

  async unsubscribe(taskId: string, subscriberId: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.queues,
          Key: { task_id: taskId },
          UpdateExpression: 'REMOVE subscribers.#id',
          ConditionExpression: 'attribute_exists(task_id)',
          ExpressionAttributeNames: { '#id': subscriberId },
        }),
      ),
    );
  }

  /**
   * Deletes tasks whose retention ended, with their events. DynamoDB's TTL removes expired rows late and
   * emulators never do; readers already ignore them, this frees the space.
   */
  async sweepExpired(): Promise<string[]> {
    const swept: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.queues,
          FilterExpression: 'expires_at <= :now',
          ExpressionAttributeValues: { ':now': Math.floor(this.now() / 1000) },
          ProjectionExpression: 'task_id',
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const taskId = String(item.task_id);
        let from: Record<string, unknown> | undefined;
        do {
          const events = await this.client.send(
            new QueryCommand({
              TableName: this.events,
              KeyConditionExpression: 'task_id = :task',
              ExpressionAttributeValues: { ':task': taskId },
              ProjectionExpression: 'task_id, offset_key',
              ExclusiveStartKey: from,
            }),
          );
          for (const key of events.Items ?? []) {
            await this.client.send(
              new DeleteCommand({
                TableName: this.events,
                Key: { task_id: key.task_id, offset_key: key.offset_key },
              }),
            );
          }
          from = events.LastEvaluatedKey;
        } while (from);
        await this.client.send(new DeleteCommand({ TableName: this.queues, Key: { task_id: taskId } }));
        swept.push(taskId);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return swept;
  }

  async info(taskId: string) {
    const record = await this.get(taskId);
    if (!record) throw noQueue(taskId);
    return queueInfo(record, this.now());
  }
}
