/**
 * Harness keys (document 3, "Authentication"; clarifications "Chat, conversations, AG-UI, harness keys"):
 * bearer keys minted per tenant for AG-UI runs. A key is `<key_id>.<secret>`; only its SHA-256 is stored,
 * with the tenant, the expiry and the revocation. The port, its DynamoDB adapter, and the key checks.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { HttpError, NotFoundError } from '@tessera/core';
import { batchDelete, conditional, documentClient, resourceName, tables } from '@tessera/platform';

export interface StoredKey {
  key_id: string;
  /** Hex SHA-256 of the whole key. */
  key_hash: string;
  tenant_id: string;
  /** Epoch seconds. */
  expires_at: number;
  /** Epoch ms of the revocation, when revoked. */
  revoked_at?: number;
}

export interface HarnessKeyStore {
  put(key: StoredKey): Promise<void>;
  get(keyId: string): Promise<StoredKey | undefined>;
  /** Marks the key revoked (keeping the first time); false when there is no such key. */
  revoke(keyId: string, now: number): Promise<boolean>;
  removeTenant(tenantId: string): Promise<void>;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** 401: no key, or one that does not open anything. */
export class UnauthorizedError extends HttpError {
  constructor(message: string) {
    super(401, message);
  }
}

export interface MintedKey {
  key_id: string;
  key: string;
  tenant_id: string;
  expires_at: string;
}

export async function mintKey(
  store: HarnessKeyStore,
  tenantId: string,
  ttlSeconds: number,
  now = Date.now(),
): Promise<MintedKey> {
  const keyId = `hk_${randomBytes(12).toString('hex')}`;
  const key = `${keyId}.${randomBytes(32).toString('base64url')}`;
  const expiresMs = now + ttlSeconds * 1000;
  await store.put({
    key_id: keyId,
    key_hash: sha256(key),
    tenant_id: tenantId,
    expires_at: Math.floor(expiresMs / 1000),
  });
  return { key_id: keyId, key, tenant_id: tenantId, expires_at: new Date(expiresMs).toISOString() };
}

export async function revokeKey(store: HarnessKeyStore, keyId: string, now = Date.now()) {
  const key = await store.get(keyId);
  // An expired key is gone as far as anyone can tell (DynamoDB's TTL deletes it late).
  if (!key || key.expires_at * 1000 <= now || !(await store.revoke(keyId, now))) {
    throw new NotFoundError(`Harness key '${keyId}' not found`);
  }
  return { status: 'revoked' as const, key_id: keyId };
}

/** The tenant an `Authorization` header's key opens; 401 without one, or with one unknown, expired or revoked. */
export async function tenantOfKey(
  store: HarnessKeyStore,
  authorization: string | undefined,
  now = Date.now(),
): Promise<string> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new UnauthorizedError('A harness key is required: Authorization: Bearer <key>');
  const key = match[1]!;
  const keyId = /^(hk_[0-9a-f]{24})\./.exec(key)?.[1];
  const stored = keyId ? await store.get(keyId) : undefined;
  const hash = Buffer.from(sha256(key), 'hex');
  if (!stored || !timingSafeEqual(hash, Buffer.from(stored.key_hash.padEnd(64, '0').slice(0, 64), 'hex'))) {
    throw new UnauthorizedError('Unknown harness key');
  }
  if (stored.revoked_at !== undefined) throw new UnauthorizedError('The harness key was revoked');
  if (stored.expires_at * 1000 <= now) throw new UnauthorizedError('The harness key expired');
  return stored.tenant_id;
}

function keyOf(item: Record<string, unknown>): StoredKey {
  return {
    key_id: String(item.key_id),
    key_hash: String(item.key_hash),
    tenant_id: String(item.tenant_id),
    expires_at: Number(item.expires_at),
    ...(item.revoked_at === undefined ? {} : { revoked_at: Number(item.revoked_at) }),
  };
}

export class DynamoHarnessKeyStore implements HarnessKeyStore {
  private readonly table = resourceName(tables.harnessKeys);

  constructor(private readonly client: DynamoDBDocumentClient = documentClient()) {}

  async put(key: StoredKey): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...key },
        ConditionExpression: 'attribute_not_exists(key_id)',
      }),
    );
  }

  async get(keyId: string): Promise<StoredKey | undefined> {
    const answer = await this.client.send(
      new GetCommand({ TableName: this.table, Key: { key_id: keyId }, ConsistentRead: true }),
    );
    return answer.Item ? keyOf(answer.Item) : undefined;
  }

  async revoke(keyId: string, now: number): Promise<boolean> {
    const done = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { key_id: keyId },
          UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
          ConditionExpression: 'attribute_exists(key_id)',
          ExpressionAttributeValues: { ':now': now },
        }),
      ),
    );
    return done !== undefined;
  }

  async removeTenant(tenantId: string): Promise<void> {
    // Keys are few and short-lived: a filtered scan finds a tenant's.
    const keys: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.table,
          FilterExpression: 'tenant_id = :tenant',
          ExpressionAttributeValues: { ':tenant': tenantId },
          ProjectionExpression: 'key_id',
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      keys.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    await batchDelete(
      this.client,
      this.table,
      keys.map((item) => ({ key_id: item.key_id })),
    );
  }
}
