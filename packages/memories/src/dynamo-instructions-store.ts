/**
 * DynamoDB adapter of the instructions store: one item a tenant. A write names the version it makes and is
 * conditional on the stored one being the version before, so of concurrent writers exactly one takes each
 * version.
 */
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditional, documentClient, getItem, resourceName, tables } from '@tessera/platform';
import { InstructionsRecord } from './model';
import type { InstructionsStore } from './store';

export class DynamoInstructionsStore implements InstructionsStore {
  private readonly table = resourceName(tables.instructions);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  async get(tenantId: string) {
    const item = await getItem(this.table, { tenant_id: tenantId });
    return item ? InstructionsRecord.parse(item) : undefined;
  }

  async put(record: InstructionsRecord) {
    const written = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: record,
          ...(record.version === 1
            ? { ConditionExpression: 'attribute_not_exists(tenant_id)' }
            : {
                ConditionExpression: 'version = :previous',
                ExpressionAttributeValues: { ':previous': record.version - 1 },
              }),
        }),
      ),
    );
    return written !== undefined;
  }

  async purgeTenant(tenantId: string) {
    const answer = await this.client.send(
      new DeleteCommand({ TableName: this.table, Key: { tenant_id: tenantId }, ReturnValues: 'ALL_OLD' }),
    );
    return answer.Attributes !== undefined;
  }
}
