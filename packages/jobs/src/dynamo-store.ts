/**
 * DynamoDB adapter of the job store (one item a job, keyed by tenant and job id; slots and leases moved by
 * conditional updates). The outbound messages are @tessera/messaging's.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { conditional, documentClient, queryAll, resourceName, tables } from '@tessera/platform';
import type { JobStore, StoredJob, StoredRun } from './store';

export class DynamoJobStore implements JobStore {
  private readonly table = resourceName(tables.jobs);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  async create(job: StoredJob) {
    const written = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: job,
          ConditionExpression: 'attribute_not_exists(job_id)',
        }),
      ),
    );
    return written !== undefined;
  }

  async get(tenantId: string, jobId: string) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: { tenant_id: tenantId, job_id: jobId },
        ConsistentRead: true,
      }),
    );
    return Item as StoredJob | undefined;
  }

  async list(tenantId: string) {
    const items = await queryAll(this.client, {
      TableName: this.table,
      KeyConditionExpression: 'tenant_id = :tenant',
      ExpressionAttributeValues: { ':tenant': tenantId },
    });
    return (items as unknown as StoredJob[]).sort(
      (a, b) => a.created_at - b.created_at || (a.job_id < b.job_id ? -1 : 1),
    );
  }

  async remove(tenantId: string, jobId: string) {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.table,
        Key: { tenant_id: tenantId, job_id: jobId },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes !== undefined;
  }

  async due(now: number) {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.table,
          FilterExpression: 'next_run <= :now',
          ExpressionAttributeValues: { ':now': now },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items as unknown as StoredJob[];
  }

  async advance(tenantId: string, jobId: string, from: number, to: number) {
    const done = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { tenant_id: tenantId, job_id: jobId },
          UpdateExpression: 'SET next_run = :to',
          ConditionExpression: 'next_run = :from',
          ExpressionAttributeValues: { ':from': from, ':to': to },
        }),
      ),
    );
    return done !== undefined;
  }

  async startRun(tenantId: string, jobId: string, run: StoredRun, leaseUntil: number, now: number) {
    const done = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { tenant_id: tenantId, job_id: jobId },
          UpdateExpression: 'SET last_run = :run, lease_until = :until',
          ConditionExpression: 'attribute_exists(job_id) AND lease_until < :now',
          ExpressionAttributeValues: { ':run': run, ':until': leaseUntil, ':now': now },
        }),
      ),
    );
    return done !== undefined;
  }

  async finishRun(tenantId: string, jobId: string, run: StoredRun) {
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { tenant_id: tenantId, job_id: jobId },
          UpdateExpression: 'SET last_run = :run, lease_until = :zero, run_count = run_count + :one',
          ConditionExpression: 'last_run.workflow_id = :id',
          ExpressionAttributeValues: { ':run': run, ':zero': 0, ':one': 1, ':id': run.workflow_id },
        }),
      ),
    );
  }
}
