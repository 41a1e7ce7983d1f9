/**
 * DynamoDB page locks: one row a locked page (`scope` = the tenant's wiki schema, `slug`), taken with a
 * conditional put that succeeds only when no row exists or the one there has expired, and removed by its
 * owner. A holder that dies leaves a row that expires after `leaseMs`; waiters poll with jitter until
 * `waitMs`, then give up with a 503.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { KeyedSerializer, ServiceUnavailableError } from '@tessera/core';
import { batchDelete, conditional, documentClient, resourceName, tables } from '@tessera/platform';
import type { PageLocks } from './locks';

export interface LockTiming {
  leaseMs: number;
  waitMs: number;
  pollMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { leaseMs: 30_000, waitMs: 20_000, pollMs: 15 };

export class DynamoPageLocks implements PageLocks {
  private readonly table = resourceName(tables.wikiLocks);
  private readonly local = new KeyedSerializer();

  constructor(
    private readonly client: DynamoDBDocumentClient = documentClient(),
    private readonly timing: LockTiming = DEFAULT_LOCK_TIMING,
    private readonly now: () => number = Date.now,
  ) {}

  hold<T>(scope: string, slug: string, task: () => Promise<T>): Promise<T> {
    return this.local.run(`${scope}\u0000${slug}`, async () => {
      const owner = await this.acquire(scope, slug);
      try {
        return await task();
      } finally {
        await this.release(scope, slug, owner).catch(() => undefined);
      }
    });
  }

  private async acquire(scope: string, slug: string): Promise<string> {
    const owner = randomUUID();
    const deadline = this.now() + this.timing.waitMs;
    for (;;) {
      const now = this.now();
      const taken = await conditional(() =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              scope,
              slug,
              owner,
              lease_until: now + this.timing.leaseMs,
              expires_at: Math.ceil((now + this.timing.leaseMs) / 1000) + 60,
            },
            ConditionExpression: 'attribute_not_exists(slug) OR lease_until < :now',
            ExpressionAttributeValues: { ':now': now },
          }),
        ),
      );
      if (taken !== undefined) return owner;
      if (this.now() > deadline) {
        throw new ServiceUnavailableError(
          'service_unavailable',
          `Wiki page '${slug}' stayed locked by another writer for ${this.timing.waitMs} ms; retry.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, this.timing.pollMs * (0.5 + Math.random())));
    }
  }

  private async release(scope: string, slug: string, owner: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { scope, slug },
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }

  async purge(scope: string): Promise<void> {
    const keys: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#scope = :scope',
          ExpressionAttributeNames: { '#scope': 'scope' },
          ExpressionAttributeValues: { ':scope': scope },
          ProjectionExpression: '#scope, slug',
          ExclusiveStartKey: start,
        }),
      );
      keys.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    await batchDelete(this.client, this.table, keys);
  }
}
