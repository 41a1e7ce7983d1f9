/**
 * The DynamoDB adapter of the job repository: job records, per-source content hashes and per-tenant run
 * slots. Every write is a conditional update.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  type ScanCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '@tessera/core';
import {
  batchDelete,
  batchGet,
  batchPut,
  conditional,
  documentClient,
  resourceName,
  tables,
} from '@tessera/platform';
import type { JobRecord, JobState } from './model';
import { type JobRepository, type SourceRecord, sourceKey } from './ports';

export class DynamoJobRepository implements JobRepository {
  private readonly jobs = resourceName(tables.ingestionJobs);
  private readonly sourceTable = resourceName(tables.ingestionSources);
  private readonly slots = resourceName(tables.ingestionSlots);

  constructor(
    private readonly client: DynamoDBDocumentClient = documentClient(),
    private readonly now: () => number = Date.now,
  ) {}

  async create(job: JobRecord): Promise<void> {
    const stored = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.jobs,
          Item: job,
          ConditionExpression: 'attribute_not_exists(job_id)',
        }),
      ),
    );
    if (!stored) throw new ConflictError(`Ingestion job ${job.job_id} already exists`);
  }

  async get(jobId: string): Promise<JobRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.jobs, Key: { job_id: jobId }, ConsistentRead: true }),
    );
    return Item as JobRecord | undefined;
  }

  async state(jobId: string): Promise<JobState | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.jobs,
        Key: { job_id: jobId },
        ConsistentRead: true,
        ProjectionExpression: '#state',
        ExpressionAttributeNames: { '#state': 'state' },
      }),
    );
    return Item?.state as JobState | undefined;
  }

  async claim(jobId: string): Promise<JobRecord | undefined> {
    const updated = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.jobs,
          Key: { job_id: jobId },
          UpdateExpression: 'SET #state = :running, updated_at = :now ADD deliveries :one',
          ConditionExpression: '#state IN (:queued, :running)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ':queued': 'queued',
            ':now': this.now(),
            ':one': 1,
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return updated?.Attributes as JobRecord | undefined;
  }

  async settle(jobId: string, state: JobState, fields: Partial<JobRecord>): Promise<boolean> {
    const values: Record<string, unknown> = {
      ':state': state,
      ':now': this.now(),
      ':queued': 'queued',
      ':running': 'running',
    };
    // Every field through a placeholder: `error`, `result` and others are reserved words in expressions.
    const names: Record<string, string> = { '#state': 'state' };
    const sets = ['#state = :state', 'updated_at = :now'];
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      names[`#${name}`] = name;
      values[`:${name}`] = value;
      sets.push(`#${name} = :${name}`);
    }
    const updated = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.jobs,
          Key: { job_id: jobId },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: '#state IN (:queued, :running)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    return updated !== undefined;
  }

  async idle(idleMs: number): Promise<JobRecord[]> {
    return (await this.scan(this.jobs, {
      FilterExpression: '#state IN (:queued, :running) AND updated_at <= :before',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':queued': 'queued',
        ':running': 'running',
        ':before': this.now() - idleMs,
      },
    })) as unknown as JobRecord[];
  }

  /** Every item of a table the filter keeps (a scan: tenant deletes and recovery are rare). */
  private async scan(
    table: string,
    filter: Pick<
      ScanCommandInput,
      'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
    projection?: string,
  ): Promise<Record<string, unknown>[]> {
    const found: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: table,
          ...filter,
          ...(projection ? { ProjectionExpression: projection } : {}),
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      found.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return found;
  }

  async tenantJobs(tenantId: string): Promise<JobRecord[]> {
    return (await this.scan(this.jobs, {
      FilterExpression: 'tenant_id = :tenant',
      ExpressionAttributeValues: { ':tenant': tenantId },
    })) as unknown as JobRecord[];
  }

  async forgetTenant(tenantId: string): Promise<void> {
    const jobs = await this.scan(
      this.jobs,
      { FilterExpression: 'tenant_id = :tenant', ExpressionAttributeValues: { ':tenant': tenantId } },
      'job_id',
    );
    await batchDelete(this.client, this.jobs, jobs);
    // Source rows are keyed `<tenant>|<profile>`; a tenant id holds no `|`, so the prefix is the tenant's own.
    const sources = await this.scan(
      this.sourceTable,
      {
        FilterExpression: 'begins_with(tenant_profile, :prefix)',
        ExpressionAttributeValues: { ':prefix': `${tenantId}|` },
      },
      'tenant_profile, source_doc_id',
    );
    await batchDelete(this.client, this.sourceTable, sources);
    await this.client.send(new DeleteCommand({ TableName: this.slots, Key: { tenant_id: tenantId } }));
  }

  async sources(
    tenantId: string,
    files: { profile: string; name: string }[],
  ): Promise<Map<string, SourceRecord>> {
    const keys = [...new Map(files.map((file) => [sourceKey(file.profile, file.name), file])).values()];
    const items = await batchGet(
      this.client,
      this.sourceTable,
      keys.map((file) => ({ tenant_profile: `${tenantId}|${file.profile}`, source_doc_id: file.name })),
    );
    return new Map(
      items.map((item) => [
        sourceKey(String(item.tenant_profile).slice(tenantId.length + 1), String(item.source_doc_id)),
        item as unknown as SourceRecord,
      ]),
    );
  }

  async recordSources(
    tenantId: string,
    records: { profile: string; name: string; record: SourceRecord }[],
  ): Promise<void> {
    await batchPut(
      this.client,
      this.sourceTable,
      records.map(({ profile, name, record }) => ({
        tenant_profile: `${tenantId}|${profile}`,
        source_doc_id: name,
        ...record,
      })),
    );
  }

  async acquireSlot(tenantId: string, holder: string, max: number, leaseMs: number): Promise<boolean> {
    const now = this.now();
    const take = () =>
      conditional(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.slots,
            Key: { tenant_id: tenantId },
            UpdateExpression: 'SET held.#job = :until',
            ConditionExpression:
              'attribute_exists(held) AND (size(held) < :max OR attribute_exists(held.#job))',
            ExpressionAttributeNames: { '#job': holder },
            ExpressionAttributeValues: { ':until': now + leaseMs, ':max': max },
          }),
        ),
      );
    if (await take()) return true;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.slots, Key: { tenant_id: tenantId }, ConsistentRead: true }),
    );
    if (!Item) {
      // First job of the tenant: create the slot row (a racing creator is fine), then take a slot.
      await conditional(() =>
        this.client.send(
          new PutCommand({
            TableName: this.slots,
            Item: { tenant_id: tenantId, held: {} },
            ConditionExpression: 'attribute_not_exists(tenant_id)',
          }),
        ),
      );
      return (await take()) !== undefined;
    }
    const lapsed = Object.entries((Item.held ?? {}) as Record<string, number>).filter(
      ([, until]) => until <= now,
    );
    if (lapsed.length === 0) return false;
    for (const [lapsedHolder, until] of lapsed) {
      await conditional(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.slots,
            Key: { tenant_id: tenantId },
            UpdateExpression: 'REMOVE held.#holder',
            ConditionExpression: 'held.#holder = :until',
            ExpressionAttributeNames: { '#holder': lapsedHolder },
            ExpressionAttributeValues: { ':until': until },
          }),
        ),
      );
    }
    return (await take()) !== undefined;
  }

  async releaseSlot(tenantId: string, holder: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.slots,
          Key: { tenant_id: tenantId },
          UpdateExpression: 'REMOVE held.#job',
          ConditionExpression: 'attribute_exists(tenant_id)',
          ExpressionAttributeNames: { '#job': holder },
        }),
      ),
    );
  }
}
