/**
 * Many-item DynamoDB reads and writes in as few requests as the service allows (100 keys a BatchGetItem,
 * 25 puts a BatchWriteItem), sending again whatever the service left unprocessed, with back-off; and every
 * page of a query.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';

const GET_KEYS = 100;
/** Writes a BatchWriteItem takes at most. */
export const BATCH_WRITE_ITEMS = 25;
/** Times unprocessed keys or items are sent again before the call fails. */
const RESENDS = 8;

type Item = Record<string, unknown>;

/** `items` cut into runs of at most `size`, in order. */
export function slices<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );
}

/**
 * Sends `pending` with `send`, which answers what DynamoDB left unprocessed; sends that again, backing off,
 * until nothing is left, and fails after 8 resends.
 */
export async function resending<T>(
  what: string,
  pending: T[],
  send: (items: T[]) => Promise<T[]>,
): Promise<void> {
  for (let resend = 0; pending.length > 0; resend++) {
    if (resend > RESENDS) throw new Error(`DynamoDB left ${pending.length} ${what} unprocessed`);
    if (resend > 0) await sleep(25 * 2 ** resend);
    pending = await send(pending);
  }
}

/** The items stored under `keys` (strongly consistent), in no particular order; absent keys are left out. */
export async function batchGet(client: DynamoDBDocumentClient, table: string, keys: Item[]): Promise<Item[]> {
  const found: Item[] = [];
  await Promise.all(
    slices(keys, GET_KEYS).map((slice) =>
      resending('keys', slice, async (pending) => {
        const answer = await client.send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
        );
        found.push(...(answer.Responses?.[table] ?? []));
        return answer.UnprocessedKeys?.[table]?.Keys ?? [];
      }),
    ),
  );
  return found;
}

/** Stores every item (unconditional puts). */
export async function batchPut(client: DynamoDBDocumentClient, table: string, items: Item[]): Promise<void> {
  await Promise.all(
    slices(items, BATCH_WRITE_ITEMS).map((slice) =>
      resending('items', slice, async (pending) => {
        const answer = await client.send(
          new BatchWriteCommand({
            RequestItems: { [table]: pending.map((Item) => ({ PutRequest: { Item } })) },
          }),
        );
        return (answer.UnprocessedItems?.[table] ?? []).map((request) => request.PutRequest!.Item as Item);
      }),
    ),
  );
}

/** Deletes the items under every key (keys that hold nothing are no error). */
export async function batchDelete(
  client: DynamoDBDocumentClient,
  table: string,
  keys: Item[],
): Promise<void> {
  await Promise.all(
    slices(keys, BATCH_WRITE_ITEMS).map((slice) =>
      resending('deletes', slice, async (pending) => {
        const answer = await client.send(
          new BatchWriteCommand({
            RequestItems: { [table]: pending.map((Key) => ({ DeleteRequest: { Key } })) },
          }),
        );
        return (answer.UnprocessedItems?.[table] ?? []).map((request) => request.DeleteRequest!.Key as Item);
      }),
    ),
  );
}

/** Every item a query matches, page after page, read consistently. */
export async function queryAll(
  client: DynamoDBDocumentClient,
  input: QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({ ...input, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
