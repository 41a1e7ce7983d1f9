/**
 * Reads and updates by key through the plain DynamoDB client (`dynamoClient`), which resolves its middleware
 * once per command type: the calls every request makes (a tenant's record, its instructions, a
 * conversation's history and thread row) cost about half the client CPU they cost through the document
 * client. Items go in and come out as plain objects, as the document client's do.
 */
import {
  GetItemCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { marshall, type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamoClient } from './clients';

type Item = Record<string, NativeAttributeValue>;

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

/** The item of `key`, read consistently, or undefined. */
export async function getItem(table: string, key: Item): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamoClient().send(
    new GetItemCommand({ TableName: table, Key: marshall(key, MARSHALL), ConsistentRead: true }),
  );
  return Item ? unmarshall(Item) : undefined;
}

/** One page of a consistent query: its items and where the next page starts. */
export async function queryPage(
  input: Omit<QueryCommandInput, 'ExpressionAttributeValues' | 'ExclusiveStartKey'> & {
    ExpressionAttributeValues?: Item;
    ExclusiveStartKey?: Item;
  },
): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
  const { ExpressionAttributeValues, ExclusiveStartKey, ...rest } = input;
  const page = await dynamoClient().send(
    new QueryCommand({
      ...rest,
      ConsistentRead: true,
      ...(ExpressionAttributeValues
        ? { ExpressionAttributeValues: marshall(ExpressionAttributeValues, MARSHALL) }
        : {}),
      ...(ExclusiveStartKey ? { ExclusiveStartKey: marshall(ExclusiveStartKey, MARSHALL) } : {}),
    }),
  );
  return {
    items: (page.Items ?? []).map((item) => unmarshall(item)),
    ...(page.LastEvaluatedKey ? { next: unmarshall(page.LastEvaluatedKey) } : {}),
  };
}

/** An update of the item of `key` (values as plain objects); answers nothing. */
export async function updateItem(
  input: Omit<UpdateItemCommandInput, 'Key' | 'ExpressionAttributeValues'> & {
    Key: Item;
    ExpressionAttributeValues?: Item;
  },
): Promise<void> {
  const { Key, ExpressionAttributeValues, ...rest } = input;
  await dynamoClient().send(
    new UpdateItemCommand({
      ...rest,
      Key: marshall(Key, MARSHALL),
      ...(ExpressionAttributeValues
        ? { ExpressionAttributeValues: marshall(ExpressionAttributeValues, MARSHALL) }
        : {}),
    }),
  );
}
