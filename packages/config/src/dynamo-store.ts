/**
 * DynamoDB adapter of the configuration store: one item a version, keyed by tenant and `<kind>#<version>`
 * (zero-padded, so a descending query gives the newest first). A version is written once, conditionally.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { batchDelete, conditional, documentClient, resourceName, tables } from '@tessera/platform';
import { type ConfigStore, ConfigVersion } from './store';

const sortKey = (kind: string, version: number) => `${kind}#${String(version).padStart(10, '0')}`;

function entryOf(item: Record<string, unknown>): ConfigVersion {
  return ConfigVersion.parse({
    version: item.version,
    value: item.value,
    created_at: item.created_at,
    created_by: item.created_by,
    ...(item.rolled_back_from === undefined ? {} : { rolled_back_from: item.rolled_back_from }),
  });
}

export class DynamoConfigStore implements ConfigStore {
  private readonly table = resourceName(tables.configRecords);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  private async query(input: Omit<QueryCommandInput, 'TableName'>, limit: number) {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          ...input,
          TableName: this.table,
          ConsistentRead: true,
          Limit: Math.min(limit - items.length, 1000),
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start && items.length < limit);
    return items;
  }

  private versions(tenantId: string, kind: string, limit: number) {
    return this.query(
      {
        KeyConditionExpression: 'tenant_id = :tenant AND begins_with(kind_version, :kind)',
        ExpressionAttributeValues: { ':tenant': tenantId, ':kind': `${kind}#` },
        ScanIndexForward: false,
      },
      limit,
    );
  }

  async latest(tenantId: string, kind: string) {
    const [item] = await this.versions(tenantId, kind, 1);
    return item ? entryOf(item) : undefined;
  }

  async get(tenantId: string, kind: string, version: number) {
    const answer = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: { tenant_id: tenantId, kind_version: sortKey(kind, version) },
        ConsistentRead: true,
      }),
    );
    return answer.Item ? entryOf(answer.Item) : undefined;
  }

  async history(tenantId: string, kind: string, limit: number) {
    return (await this.versions(tenantId, kind, limit)).map(entryOf);
  }

  async append(tenantId: string, kind: string, entry: ConfigVersion) {
    const written = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { tenant_id: tenantId, kind_version: sortKey(kind, entry.version), kind, ...entry },
          ConditionExpression: 'attribute_not_exists(kind_version)',
        }),
      ),
    );
    return written !== undefined;
  }

  async purgeTenant(tenantId: string) {
    const keys = (
      await this.query(
        {
          KeyConditionExpression: 'tenant_id = :tenant',
          ExpressionAttributeValues: { ':tenant': tenantId },
          ProjectionExpression: 'tenant_id, kind_version',
        },
        Number.POSITIVE_INFINITY,
      )
    ).map((item) => ({ tenant_id: item.tenant_id, kind_version: item.kind_version }));
    await batchDelete(this.client, this.table, keys);
    return keys.length;
  }
}
