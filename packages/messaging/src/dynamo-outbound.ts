/**
 * DynamoDB adapter of the outbound queue: messages keyed by tenant and a time-ordered message id; a drain
 * takes each by a conditional delete, so two drains never both get one.
 */
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { batchDelete, conditional, documentClient, queryAll, resourceName, tables } from '@tessera/platform';
import type { OutboundMessage, OutboundStore } from './store';

type Item = Record<string, unknown>;

function messageOf(item: Item): OutboundMessage {
  return {
    tenant_id: String(item.tenant_id),
    message_id: String(item.message_id),
    chat_id: typeof item.chat_id === 'string' ? item.chat_id : null,
    platform: typeof item.platform === 'string' ? item.platform : null,
    text: String(item.text),
    source: String(item.source),
    created_at: Number(item.created_at),
  };
}

const byAge = (a: OutboundMessage, b: OutboundMessage) =>
  a.created_at - b.created_at || (a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : 0);

export class DynamoOutboundStore implements OutboundStore {
  private readonly table = resourceName(tables.outboundMessages);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  async enqueue(message: OutboundMessage) {
    await this.client.send(
      new PutCommand({ TableName: this.table, Item: { ...message, platform: message.platform ?? null } }),
    );
  }

  async list(tenantId: string) {
    const items = await queryAll(this.client, {
      TableName: this.table,
      KeyConditionExpression: 'tenant_id = :tenant',
      ExpressionAttributeValues: { ':tenant': tenantId },
    });
    return items.map(messageOf).sort(byAge);
  }

  async pending(platform: string, limit: number) {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.table,
          ConsistentRead: true,
          ExclusiveStartKey: start,
          FilterExpression: 'platform = :platform OR attribute_type(platform, :null)',
          ExpressionAttributeValues: { ':platform': platform, ':null': 'NULL' },
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items.map(messageOf).sort(byAge).slice(0, limit);
  }

  async take(tenantId: string, messageId: string) {
    const answer = await conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { tenant_id: tenantId, message_id: messageId },
          ConditionExpression: 'attribute_exists(message_id)',
          ReturnValues: 'ALL_OLD',
        }),
      ),
    );
    return answer?.Attributes ? messageOf(answer.Attributes) : undefined;
  }

  async purgeTenant(tenantId: string) {
    const keys = (
      await queryAll(this.client, {
        TableName: this.table,
        KeyConditionExpression: 'tenant_id = :tenant',
        ExpressionAttributeValues: { ':tenant': tenantId },
        ProjectionExpression: 'tenant_id, message_id',
      })
    ).map((item) => ({ tenant_id: item.tenant_id, message_id: item.message_id }));
    await batchDelete(this.client, this.table, keys);
    return keys.length;
  }
}
