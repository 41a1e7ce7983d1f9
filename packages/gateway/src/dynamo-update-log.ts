/**
 * The webhook's update log in the messaging table, under the system tenant (`update#<id>`), kept a day (the
 * longest Telegram goes on retrying an update), each recorded by a conditional put.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SYSTEM_TENANT } from '@tessera/core';
import { conditional, documentClient, resourceName, tables } from '@tessera/platform';
import type { UpdateLog, UpdateState } from './webhook-intake';

const KEEP_SECONDS = 86_400;

export class DynamoUpdateLog implements UpdateLog {
  private readonly table = resourceName(tables.messaging);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  private key(updateId: number) {
    return { pk: SYSTEM_TENANT, sk: `update#${updateId}` };
  }

  async claim(updateId: number, now: number): Promise<UpdateState> {
    const written = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...this.key(updateId),
            state: 'pending',
            expires_at: Math.floor(now / 1000) + KEEP_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(sk)',
        }),
      ),
    );
    if (written) return 'new';
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.table, Key: this.key(updateId), ConsistentRead: true }),
    );
    return Item?.state === 'queued' ? 'queued' : 'pending';
  }

  async markQueued(updateId: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: this.key(updateId),
        UpdateExpression: 'SET #state = :queued',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':queued': 'queued' },
      }),
    );
  }
}
