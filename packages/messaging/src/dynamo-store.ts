/**
 * DynamoDB adapter of the messaging store. Invites, user mappings and linked chats are items of the
 * reserved system tenant's partition of the `messaging` table (`sk`: `invite#<token>`, `user#<platform>#<user>`,
 * `chat#<tenant>#<platform>#<user>`), moved only by conditional writes (no transactions: dynalite has none).
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { SYSTEM_TENANT } from '@tessera/core';
import { batchDelete, conditional, documentClient, queryAll, resourceName, tables } from '@tessera/platform';
import type { ChatLink, MessagingStore, StoredInvite } from './store';

type Item = Record<string, unknown>;

const inviteKey = (token: string) => `invite#${token}`;
const userKey = (platform: string, userId: string) => `user#${platform}#${userId}`;
const chatPrefix = (tenantId: string) => `chat#${tenantId}#`;
const chatKey = (link: Pick<ChatLink, 'tenant_id' | 'platform' | 'external_user_id'>) =>
  `${chatPrefix(link.tenant_id)}${link.platform}#${link.external_user_id}`;

function inviteOf(item: Item): StoredInvite {
  return {
    token: String(item.token),
    tenant_id: String(item.tenant_id),
    created_at: Number(item.created_at),
    expires_at: Number(item.expires_at),
    claimed_by: typeof item.claimed_by === 'string' ? item.claimed_by : null,
    consumed_at: typeof item.consumed_at === 'number' ? item.consumed_at : null,
  };
}

function linkOf(item: Item): ChatLink {
  return {
    platform: String(item.platform),
    external_user_id: String(item.external_user_id),
    tenant_id: String(item.tenant_id),
    chat_id: String(item.chat_id),
    registered_at: Number(item.registered_at),
  };
}

export class DynamoMessagingStore implements MessagingStore {
  private readonly table = resourceName(tables.messaging);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  private key(itemKey: string) {
    return { pk: SYSTEM_TENANT, sk: itemKey };
  }

  async putInvite(invite: StoredInvite) {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        // Unclaimed and unused are absent attributes: the conditions below test for them.
        Item: {
          ...this.key(inviteKey(invite.token)),
          token: invite.token,
          tenant_id: invite.tenant_id,
          created_at: invite.created_at,
          expires_at: invite.expires_at,
          ...(invite.claimed_by === null ? {} : { claimed_by: invite.claimed_by }),
          ...(invite.consumed_at === null ? {} : { consumed_at: invite.consumed_at }),
        },
        ConditionExpression: 'attribute_not_exists(sk)',
      }),
    );
  }

  async claimInvite(token: string, user: string, now: number) {
    const answer = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(inviteKey(token)),
          UpdateExpression: 'SET claimed_by = :user',
          ConditionExpression:
            'attribute_exists(sk) AND expires_at > :now AND attribute_not_exists(consumed_at) AND (attribute_not_exists(claimed_by) OR claimed_by = :user)',
          ExpressionAttributeValues: { ':user': user, ':now': Math.floor(now / 1000) },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return answer?.Attributes ? inviteOf(answer.Attributes) : undefined;
  }

  async consumeInvite(token: string, user: string, now: number) {
    const done = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(inviteKey(token)),
          UpdateExpression: 'SET consumed_at = :now',
          ConditionExpression: 'claimed_by = :user AND attribute_not_exists(consumed_at)',
          ExpressionAttributeValues: { ':user': user, ':now': now },
        }),
      ),
    );
    if (done) return true;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.table, Key: this.key(inviteKey(token)), ConsistentRead: true }),
    );
    return Item?.claimed_by === user && typeof Item.consumed_at === 'number';
  }

  async link(link: ChatLink) {
    const { Attributes } = await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...this.key(userKey(link.platform, link.external_user_id)), ...link },
        ReturnValues: 'ALL_OLD',
      }),
    );
    await this.client.send(
      new PutCommand({ TableName: this.table, Item: { ...this.key(chatKey(link)), ...link } }),
    );
    const previous = Attributes ? linkOf(Attributes) : undefined;
    if (previous && previous.tenant_id !== link.tenant_id) {
      await this.client.send(new DeleteCommand({ TableName: this.table, Key: this.key(chatKey(previous)) }));
    }
    return previous;
  }

  async resolve(platform: string, externalUserId: string) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: this.key(userKey(platform, externalUserId)),
        ConsistentRead: true,
      }),
    );
    return Item ? linkOf(Item) : undefined;
  }

  async linkedChats(tenantId: string, platform?: string) {
    const prefix = platform ? `${chatPrefix(tenantId)}${platform}#` : chatPrefix(tenantId);
    const items = await queryAll(this.client, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :scope AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':scope': SYSTEM_TENANT, ':prefix': prefix },
    });
    return items.map(linkOf);
  }

  async purgeTenant(tenantId: string) {
    const chats = await this.linkedChats(tenantId);
    for (const chat of chats) {
      // Only a mapping still to this tenant: the user may have registered with another since.
      await conditional(() =>
        this.client.send(
          new DeleteCommand({
            TableName: this.table,
            Key: this.key(userKey(chat.platform, chat.external_user_id)),
            ConditionExpression: 'tenant_id = :tenant',
            ExpressionAttributeValues: { ':tenant': tenantId },
          }),
        ),
      );
    }
    const invites = await queryAll(this.client, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :scope AND begins_with(sk, :prefix)',
      FilterExpression: 'tenant_id = :tenant',
      ExpressionAttributeValues: { ':scope': SYSTEM_TENANT, ':prefix': 'invite#', ':tenant': tenantId },
      ProjectionExpression: 'sk',
    });
    const keys = [...chats.map((chat) => chatKey(chat)), ...invites.map((item) => String(item.sk))];
    await batchDelete(
      this.client,
      this.table,
      keys.map((key) => this.key(key)),
    );
    return keys.length;
  }
}
