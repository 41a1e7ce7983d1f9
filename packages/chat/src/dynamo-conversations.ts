/**
 * DynamoDB adapter of the conversation store: per tenant, a thread row (`thread#<context_id>`) whose message
 * count grows by an atomic ADD, and one row a message (`msg#<context_id>#<time>#<append>#<n>`). Each append
 * writes rows of its own, so appends from concurrent requests never overwrite each other.
 */
import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  batchDelete,
  batchPut,
  documentClient,
  queryPage,
  resourceName,
  tables,
  updateItem,
} from '@tessera/platform';
import {
  type ConversationStore,
  type NewMessage,
  type StoredMessage,
  type ThreadSummary,
  titleOf,
} from './conversations';

type Item = Record<string, unknown>;

const threadKey = (contextId: string) => `thread#${contextId}`;
const messagePrefix = (contextId: string) => `msg#${contextId}#`;

function summaryOf(item: Item): ThreadSummary {
  return {
    context_id: String(item.context_id),
    title: String(item.title ?? ''),
    updated_at: Number(item.updated_at),
    message_count: Number(item.message_count ?? 0),
  };
}

function messageOf(item: Item): StoredMessage {
  return {
    role: item.role === 'assistant' ? 'assistant' : 'user',
    content: String(item.content ?? ''),
    created_at: Number(item.created_at),
    ...(typeof item.agent === 'string' ? { agent: item.agent } : {}),
  };
}

export class DynamoConversationStore implements ConversationStore {
  private readonly table = resourceName(tables.conversations);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  private async query(
    input: Omit<Parameters<typeof queryPage>[0], 'TableName'>,
    limit = Number.POSITIVE_INFINITY,
  ) {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await queryPage({
        ...input,
        TableName: this.table,
        ...(Number.isFinite(limit) ? { Limit: Math.min(limit - items.length, 1000) } : {}),
        ExclusiveStartKey: start,
      });
      items.push(...page.items);
      start = page.next;
    } while (start && items.length < limit);
    return items;
  }

  private prefixed(tenantId: string, prefix: string, options: { newestFirst?: boolean; keysOnly?: boolean }) {
    return {
      KeyConditionExpression: 'tenant_id = :tenant AND begins_with(item_key, :prefix)',
      ExpressionAttributeValues: { ':tenant': tenantId, ':prefix': prefix },
      ScanIndexForward: !options.newestFirst,
      ...(options.keysOnly ? { ProjectionExpression: 'tenant_id, item_key' } : {}),
    };
  }

  async append(tenantId: string, contextId: string, messages: NewMessage[], now: number): Promise<void> {
    if (messages.length === 0) return;
    const append = randomBytes(6).toString('hex');
    const time = String(now).padStart(15, '0');
    await batchPut(
      this.client,
      this.table,
      messages.map((message, n) => ({
        tenant_id: tenantId,
        item_key: `${messagePrefix(contextId)}${time}#${append}#${String(n).padStart(4, '0')}`,
        role: message.role,
        content: message.content,
        created_at: now,
        ...(message.agent ? { agent: message.agent } : {}),
      })),
    );
    await updateItem({
      TableName: this.table,
      Key: { tenant_id: tenantId, item_key: threadKey(contextId) },
      UpdateExpression:
        'SET context_id = :context, title = if_not_exists(title, :title), created_at = if_not_exists(created_at, :now), updated_at = :now ADD message_count :count',
      ExpressionAttributeValues: {
        ':context': contextId,
        ':title': titleOf(messages[0]!.content),
        ':now': now,
        ':count': messages.length,
      },
    });
  }

  async recent(tenantId: string, contextId: string, limit: number): Promise<StoredMessage[]> {
    const items = await this.query(
      this.prefixed(tenantId, messagePrefix(contextId), { newestFirst: true }),
      limit,
    );
    return items.map(messageOf).reverse();
  }

  async thread(tenantId: string, contextId: string) {
    const answer = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: { tenant_id: tenantId, item_key: threadKey(contextId) },
        ConsistentRead: true,
      }),
    );
    if (!answer.Item) return undefined;
    const messages = (await this.query(this.prefixed(tenantId, messagePrefix(contextId), {}))).map(messageOf);
    return { ...summaryOf(answer.Item), messages };
  }

  async threads(tenantId: string): Promise<ThreadSummary[]> {
    const items = await this.query(this.prefixed(tenantId, 'thread#', {}));
    return items.map(summaryOf).sort((a, b) => b.updated_at - a.updated_at);
  }

  async remove(tenantId: string, contextId: string): Promise<boolean> {
    const messages = await this.query(this.prefixed(tenantId, messagePrefix(contextId), { keysOnly: true }));
    const thread = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: { tenant_id: tenantId, item_key: threadKey(contextId) },
        ConsistentRead: true,
      }),
    );
    if (!thread.Item && messages.length === 0) return false;
    // Messages first: a removal cut short leaves the thread row, so a repeated DELETE finds it.
    await batchDelete(
      this.client,
      this.table,
      messages.map((item) => ({ tenant_id: tenantId, item_key: item.item_key })),
    );
    await batchDelete(this.client, this.table, [{ tenant_id: tenantId, item_key: threadKey(contextId) }]);
    return thread.Item !== undefined;
  }

  async removeTenant(tenantId: string): Promise<void> {
    const items = await this.query({
      KeyConditionExpression: 'tenant_id = :tenant',
      ExpressionAttributeValues: { ':tenant': tenantId },
      ProjectionExpression: 'tenant_id, item_key',
    });
    await batchDelete(
      this.client,
      this.table,
      items.map((item) => ({ tenant_id: tenantId, item_key: item.item_key })),
    );
  }
}
