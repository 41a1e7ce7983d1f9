/**
 * DynamoDB adapter of the provisioning store: executions under `execution#<id>`, written conditionally on
 * their revision; a tenant's resources under `tenant#<id>` (one item each), its quota's usage counted by a
 * conditional update so concurrent uploads never pass the quota together.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { conditional, documentClient, resourceName, tables } from '@tessera/platform';
import { ExecutionRecord, type ProvisioningStore, QuotaRecord, type ResourceKind } from './store';

const executionKey = (tenantId: string, id: string) => ({ pk: `tenant#${tenantId}`, sk: `execution#${id}` });
const tenantKey = (tenantId: string, kind: string) => ({ pk: `tenant#${tenantId}`, sk: kind });

export class DynamoProvisioningStore implements ProvisioningStore {
  private readonly table = resourceName(tables.provisioning);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  async createExecution(record: ExecutionRecord): Promise<boolean> {
    const written = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...executionKey(record.tenant_id, record.execution_id), ...record },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    return written !== undefined;
  }

  async getExecution(tenantId: string, executionId: string): Promise<ExecutionRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: executionKey(tenantId, executionId),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...record } = Item;
    return ExecutionRecord.parse(record);
  }

  async replaceExecution(record: ExecutionRecord, revision: number): Promise<boolean> {
    const written = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...executionKey(record.tenant_id, record.execution_id), ...record },
          ConditionExpression: 'revision = :revision',
          ExpressionAttributeValues: { ':revision': revision },
        }),
      ),
    );
    return written !== undefined;
  }

  async putResource(tenantId: string, kind: ResourceKind, value: Record<string, unknown>): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.table, Item: { ...tenantKey(tenantId, kind), ...value } }),
    );
  }

  async getResource(tenantId: string, kind: ResourceKind): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.table, Key: tenantKey(tenantId, kind), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...value } = Item;
    return value;
  }

  async reserveStorage(tenantId: string, bytes: number): Promise<number | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const item = await this.getResource(tenantId, 'quota');
      if (!item) return undefined;
      const quota = QuotaRecord.parse(item);
      const limit = quota.storage_quota;
      if (limit === null) return undefined;
      if (quota.used_bytes + bytes > limit) return limit;
      const counted = await conditional(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: tenantKey(tenantId, 'quota'),
            UpdateExpression: 'SET used_bytes = used_bytes + :bytes',
            ConditionExpression: 'storage_quota = :quota AND used_bytes <= :limit',
            ExpressionAttributeValues: {
              ':bytes': bytes,
              ':quota': limit,
              ':limit': limit - bytes,
            },
          }),
        ),
      );
      if (counted) return undefined;
    }
    const latest = await this.getResource(tenantId, 'quota');
    return latest ? (QuotaRecord.parse(latest).storage_quota ?? undefined) : undefined;
  }

  async purgeTenant(tenantId: string): Promise<void> {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `tenant#${tenantId}` },
          ProjectionExpression: 'pk, sk',
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        await this.client.send(
          new DeleteCommand({ TableName: this.table, Key: { pk: item.pk, sk: item.sk } }),
        );
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
}
