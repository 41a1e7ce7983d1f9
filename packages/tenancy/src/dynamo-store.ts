/** DynamoDB adapter of the tenancy store. Every state change is a conditional write. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { documentClient, getItem, resourceName, tables } from '@tessera/platform';
import type { z } from 'zod';
import { Organization, RegistryRow, TenantRecord, TierRecord } from './records';
import type { TenancyStore } from './store';

async function conditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export class DynamoTenancyStore implements TenancyStore {
  private readonly organizations = resourceName(tables.organizations);
  private readonly tenants = resourceName(tables.tenants);
  private readonly tiers = resourceName(tables.tenantTiers);
  private readonly registry = resourceName(tables.schemaRegistry);
  private readonly suffixes = resourceName(tables.schemaSuffixes);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  private async get<S extends z.ZodType>(table: string, key: Record<string, string>, schema: S) {
    const item = await getItem(table, key);
    return item ? (schema.parse(item) as z.output<S>) : undefined;
  }

  private async scan<S extends z.ZodType>(input: ScanCommandInput, schema: S): Promise<z.output<S>[]> {
    const items: z.output<S>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({ ...input, ConsistentRead: true, ExclusiveStartKey: start }),
      );
      for (const item of page.Items ?? []) items.push(schema.parse(item) as z.output<S>);
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  private async query<S extends z.ZodType>(input: QueryCommandInput, schema: S): Promise<z.output<S>[]> {
    const items: z.output<S>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({ ...input, ConsistentRead: true, ExclusiveStartKey: start }),
      );
      for (const item of page.Items ?? []) items.push(schema.parse(item) as z.output<S>);
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  getOrganization(orgId: string) {
    return this.get(this.organizations, { org_id: orgId }, Organization);
  }

  putOrganizationIfAbsent(org: Organization) {
    return conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.organizations,
          Item: org,
          ConditionExpression: 'attribute_not_exists(org_id)',
        }),
      ),
    );
  }

  listOrganizations() {
    return this.scan({ TableName: this.organizations }, Organization);
  }

  async deleteOrganization(orgId: string) {
    await this.client.send(new DeleteCommand({ TableName: this.organizations, Key: { org_id: orgId } }));
  }

  getTenant(orgId: string, tenantName: string) {
    return this.get(this.tenants, { org_id: orgId, tenant_name: tenantName }, TenantRecord);
  }

  putTenantIfAbsent(record: TenantRecord) {
    return conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tenants,
          Item: record,
          ConditionExpression: 'attribute_not_exists(org_id)',
        }),
      ),
    );
  }

  replaceTenant(record: TenantRecord, expectedRevision: number) {
    return conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tenants,
          Item: record,
          ConditionExpression: '#revision = :expected',
          ExpressionAttributeNames: { '#revision': 'revision' },
          ExpressionAttributeValues: { ':expected': expectedRevision },
        }),
      ),
    );
  }

  deleteTenant(orgId: string, tenantName: string, expectedRevision: number) {
    return conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tenants,
          Key: { org_id: orgId, tenant_name: tenantName },
          ConditionExpression: '#revision = :expected',
          ExpressionAttributeNames: { '#revision': 'revision' },
          ExpressionAttributeValues: { ':expected': expectedRevision },
        }),
      ),
    );
  }

  listTenants(orgId: string) {
    return this.query(
      {
        TableName: this.tenants,
        KeyConditionExpression: 'org_id = :org',
        ExpressionAttributeValues: { ':org': orgId },
      },
      TenantRecord,
    );
  }

  listAllTenants() {
    return this.scan({ TableName: this.tenants }, TenantRecord);
  }

  getTier(tenantFullId: string) {
    return this.get(this.tiers, { tenant_full_id: tenantFullId }, TierRecord);
  }

  async putTier(tier: TierRecord) {
    await this.client.send(new PutCommand({ TableName: this.tiers, Item: tier }));
  }

  async deleteTier(tenantFullId: string) {
    await this.client.send(
      new DeleteCommand({ TableName: this.tiers, Key: { tenant_full_id: tenantFullId } }),
    );
  }

  async claimSchemaSuffix(suffix: string, tenantFullId: string, replacing?: string) {
    for (let attempt = 0; ; attempt++) {
      const claimed = await conditional(() =>
        this.client.send(
          new PutCommand({
            TableName: this.suffixes,
            Item: { schema_suffix: suffix, tenant_full_id: tenantFullId },
            ConditionExpression: `attribute_not_exists(schema_suffix) OR tenant_full_id IN (:me${replacing === undefined ? '' : ', :replacing'})`,
            ExpressionAttributeValues: {
              ':me': tenantFullId,
              ...(replacing === undefined ? {} : { ':replacing': replacing }),
            },
          }),
        ),
      );
      if (claimed) return undefined;
      const { Item } = await this.client.send(
        new GetCommand({ TableName: this.suffixes, Key: { schema_suffix: suffix }, ConsistentRead: true }),
      );
      // Released between the two requests: claim again.
      if (Item || attempt >= 2) return String(Item?.tenant_full_id ?? 'another tenant');
    }
  }

  async releaseSchemaSuffix(suffix: string, tenantFullId: string) {
    await conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.suffixes,
          Key: { schema_suffix: suffix },
          ConditionExpression: 'tenant_full_id = :me',
          ExpressionAttributeValues: { ':me': tenantFullId },
        }),
      ),
    );
  }

  async putRegistryRow(row: RegistryRow) {
    await this.client.send(new PutCommand({ TableName: this.registry, Item: row }));
  }

  listRegistryRows(tenantFullId: string) {
    return this.query(
      {
        TableName: this.registry,
        KeyConditionExpression: 'tenant_full_id = :tenant',
        ExpressionAttributeValues: { ':tenant': tenantFullId },
      },
      RegistryRow,
    );
  }

  listAllRegistryRows() {
    return this.scan({ TableName: this.registry }, RegistryRow);
  }

  async deleteRegistryRow(tenantFullId: string, schemaName: string) {
    await this.client.send(
      new DeleteCommand({
        TableName: this.registry,
        Key: { tenant_full_id: tenantFullId, schema_name: schemaName },
      }),
    );
  }
}
