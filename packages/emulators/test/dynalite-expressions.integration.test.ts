import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { failure } from '@tessera/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalBackends } from '../src/backends';
import type { Emulators } from '../src/thread';

let emulators: Emulators;
let client: DynamoDBClient;
const table = 'expressions';

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'expressions-')));
  client = new DynamoDBClient({ region: 'us-east-1', maxAttempts: 1 });
  await client.send(
    new CreateTableCommand({
      TableName: table,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  // dynalite creates a table in the background (CREATING, then ACTIVE), slowly on a loaded machine.
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: table });
});

afterAll(async () => {
  await emulators?.stop();
});

const update = (id: string, expression: string, values?: Record<string, unknown>, condition?: string) =>
  client.send(
    new UpdateItemCommand({
      TableName: table,
      Key: { id: { S: id } },
      UpdateExpression: expression,
      ConditionExpression: condition,
      // biome-ignore lint/suspicious/noExplicitAny: attribute values of every type, as the wire takes them
      ExpressionAttributeValues: values as any,
      ReturnValues: 'ALL_NEW',
    }),
  );

/** How DynamoDB refused a request: the error's name and message. */
const refusal = async (promise: Promise<unknown>) => {
  const error = await failure(promise);
  return `${error.name}: ${error.message}`;
};

describe('dynalite with remembered expression parses (integration)', () => {
  it('evaluates a repeated expression against each item, not against the item it was first parsed for', async () => {
    const counter = 'SET n = if_not_exists(n, :zero) + :one';
    const values = { ':zero': { N: '0' }, ':one': { N: '1' } };
    for (let round = 1; round <= 3; round++) {
      for (const id of ['a', 'b']) {
        const { Attributes } = await update(id, counter, values);
        expect(Attributes?.n).toEqual({ N: String(round) });
      }
    }
    await update('c', 'SET n = :ten', { ':ten': { N: '10' } });
    const { Attributes } = await update('c', counter, values);
    expect(Attributes?.n).toEqual({ N: '11' });
  });

  it('checks the types of the values each time an expression comes again', async () => {
    await update('d', 'ADD amount :v', { ':v': { N: '2' } });
    expect(await refusal(update('d', 'ADD amount :v', { ':v': { S: 'two' } }))).toMatch(
      /ValidationException: .*Incorrect operand type for operator or function; operator: ADD, operand type: STRING/,
    );
    const { Attributes } = await update('d', 'ADD amount :v', { ':v': { N: '3' } });
    expect(Attributes?.amount).toEqual({ N: '5' });
  });

  it('still refuses a value the expressions do not use, and a condition that does not hold', async () => {
    await update('e', 'ADD amount :v', { ':v': { N: '1' } });
    expect(await refusal(update('e', 'ADD amount :v', { ':v': { N: '1' }, ':spare': { N: '1' } }))).toMatch(
      /ValidationException: Value provided in ExpressionAttributeValues unused in expressions: keys: \{:spare\}/,
    );
    const guarded = (limit: string) =>
      update('e', 'ADD amount :v', { ':v': { N: '1' }, ':limit': { N: limit } }, 'amount < :limit');
    await guarded('5');
    expect(await refusal(guarded('2'))).toMatch(/ConditionalCheckFailedException/);
    const { Attributes } = await guarded('5');
    expect(Attributes?.amount).toEqual({ N: '3' });
  });

  it('answers a malformed expression with the same error each time', async () => {
    const first = await refusal(update('f', 'ADD amount'));
    expect(first).toMatch(/ValidationException: Invalid UpdateExpression: Syntax error/);
    expect(await refusal(update('f', 'ADD amount'))).toBe(first);
  });
});
