/**
 * DynamoDB adapter of the profile store: one item a version, keyed by tenant and `<profile_name>#<version>`
 * (zero-padded; `#` cannot occur in a name), so a descending query of a name's prefix gives its newest version.
 * A version is written once, conditionally.
 */
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { batchDelete, conditional, documentClient, resourceName, tables } from '@tessera/platform';
import { type ProfileStore, StoredProfile } from './store';

const sortKey = (name: string, version: number) => `${name}#${String(version).padStart(10, '0')}`;

function profileOf(item: Record<string, unknown>): StoredProfile {
  const { profile_version: _key, ...profile } = item;
  return StoredProfile.parse(profile);
}

export class DynamoProfileStore implements ProfileStore {
  private readonly table = resourceName(tables.profiles);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  private async query(input: Omit<QueryCommandInput, 'TableName'>, limit = Number.POSITIVE_INFINITY) {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          ...input,
          TableName: this.table,
          ConsistentRead: true,
          ...(Number.isFinite(limit) ? { Limit: limit - items.length } : {}),
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start && items.length < limit);
    return items;
  }

  private versionsOf(tenantId: string, name: string, limit?: number, keysOnly = false) {
    return this.query(
      {
        KeyConditionExpression: 'tenant_id = :tenant AND begins_with(profile_version, :name)',
        ExpressionAttributeValues: { ':tenant': tenantId, ':name': `${name}#` },
        ScanIndexForward: false,
        ...(keysOnly ? { ProjectionExpression: 'tenant_id, profile_version' } : {}),
      },
      limit,
    );
  }

  async latest(tenantId: string, name: string) {
    const [item] = await this.versionsOf(tenantId, name, 1);
    return item ? profileOf(item) : undefined;
  }

  async versions(tenantId: string, name: string) {
    return (await this.versionsOf(tenantId, name)).map(profileOf);
  }

  async list(tenantId: string) {
    const newest = new Map<string, StoredProfile>();
    const items = await this.query({
      KeyConditionExpression: 'tenant_id = :tenant',
      ExpressionAttributeValues: { ':tenant': tenantId },
    });
    for (const item of items) {
      const profile = profileOf(item);
      const known = newest.get(profile.profile_name);
      if (!known || profile.version > known.version) newest.set(profile.profile_name, profile);
    }
    return [...newest.values()].sort((a, b) => a.profile_name.localeCompare(b.profile_name));
  }

  async append(profile: StoredProfile) {
    const written = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...profile, profile_version: sortKey(profile.profile_name, profile.version) },
          ConditionExpression: 'attribute_not_exists(profile_version)',
        }),
      ),
    );
    return written !== undefined;
  }

  private async removeKeys(items: Record<string, unknown>[]) {
    const keys = items.map((item) => ({ tenant_id: item.tenant_id, profile_version: item.profile_version }));
    await batchDelete(this.client, this.table, keys);
    return keys.length;
  }

  async remove(tenantId: string, name: string) {
    return this.removeKeys(await this.versionsOf(tenantId, name, undefined, true));
  }

  async purgeTenant(tenantId: string) {
    return this.removeKeys(
      await this.query({
        KeyConditionExpression: 'tenant_id = :tenant',
        ExpressionAttributeValues: { ':tenant': tenantId },
        ProjectionExpression: 'tenant_id, profile_version',
      }),
    );
  }
}
