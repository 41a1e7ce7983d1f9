import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { type EventRow, EventRowWriter } from '../src/dynamo-rows';

type Command = BatchWriteItemCommand | PutItemCommand | DeleteItemCommand;

/** A DynamoDB client that records what it is sent and answers with `answer`. */
function fakeClient(answer: (command: Command) => Promise<unknown> = async () => ({})) {
  const sent: Command[] = [];
  const client = {
    send: (command: Command) => {
      sent.push(command);
      return answer(command);
    },
  } as unknown as DynamoDBClient;
  return { client, sent };
}

const row = (offset: number, extra: Record<string, unknown> = {}): EventRow => ({
  task_id: 'task',
  offset_key: String(offset).padStart(12, '0'),
  event: '{}',
  ...extra,
});

/** The rows a command stores, unmarshalled. */
const batchRows = (command: Command) =>
  (command instanceof BatchWriteItemCommand
    ? (command.input.RequestItems?.events ?? []).map((request) => request.PutRequest?.Item)
    : ['Item' in command.input ? command.input.Item : undefined]
  ).map((item) => item && unmarshall(item));

const validationError = () =>
  Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
    name: 'ValidationException',
  });

describe('EventRowWriter', () => {
  it('writes rows handed over together in BatchWriteItems of 25, and a lone row with a PutItem', async () => {
    const { client, sent } = fakeClient();
    const writer = new EventRowWriter(client, 'events');
    await Promise.all(Array.from({ length: 30 }, (_, i) => writer.put(row(i))));
    expect(sent.map((command) => [command.constructor.name, batchRows(command).length])).toEqual([
      ['BatchWriteItemCommand', 25],
      ['BatchWriteItemCommand', 5],
    ]);
    await writer.put(row(30));
    expect(sent[2]).toBeInstanceOf(PutItemCommand);
    expect(batchRows(sent[2]!)).toEqual([row(30)]);
  });

  it('sends removals handed over with rows in the same BatchWriteItem, and a lone removal with a DeleteItem', async () => {
    const { client, sent } = fakeClient();
    const writer = new EventRowWriter(client, 'events');
    const key = { task_id: 'task', offset_key: row(0).offset_key };
    await Promise.all([writer.put(row(1000)), writer.remove(key)]);
    expect(sent).toHaveLength(1);
    expect((sent[0] as BatchWriteItemCommand).input.RequestItems?.events).toEqual([
      { PutRequest: { Item: marshall(row(1000)) } },
      { DeleteRequest: { Key: marshall(key) } },
    ]);
    await writer.remove(key);
    expect(sent[1]).toBeInstanceOf(DeleteItemCommand);
    expect((sent[1] as DeleteItemCommand).input.Key).toEqual(marshall(key));
  });

  it('gathers the rows handed over while a batch is in flight into the next batch', async () => {
    let release = () => {};
    const { client, sent } = fakeClient(async () => {
      if (sent.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return {};
    });
    const writer = new EventRowWriter(client, 'events');
    const first = writer.put(row(0));
    await new Promise((resolve) => setImmediate(resolve));
    const next = [1, 2, 3].map((offset) => writer.put(row(offset)));
    release();
    await Promise.all([first, ...next]);
    expect(sent.map((command) => batchRows(command).map((item) => item?.offset_key))).toEqual([
      [row(0).offset_key],
      [row(1).offset_key, row(2).offset_key, row(3).offset_key],
    ]);
  });

  it('sends the rows DynamoDB left unprocessed again until they are stored', async () => {
    const { client, sent } = fakeClient(async () =>
      sent.length === 1 ? { UnprocessedItems: { events: [{ PutRequest: { Item: marshall(row(1)) } }] } } : {},
    );
    const writer = new EventRowWriter(client, 'events');
    await Promise.all([0, 1, 2].map((offset) => writer.put(row(offset))));
    expect(sent.map((command) => batchRows(command).length)).toEqual([3, 1]);
    expect(batchRows(sent[1]!)).toEqual([row(1)]);
  });

  it('fails only the oversized row of a batch DynamoDB refused', async () => {
    const { client } = fakeClient(async (command) => {
      if (batchRows(command).some((item) => item?.oversized)) throw validationError();
      return {};
    });
    const writer = new EventRowWriter(client, 'events');
    const results = await Promise.allSettled([
      writer.put(row(0)),
      writer.put(row(1, { oversized: true })),
      writer.put(row(2)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('fails every row of a batch the store did not answer', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED'), { name: 'Error' });
    const { client, sent } = fakeClient(async () => {
      throw down;
    });
    const writer = new EventRowWriter(client, 'events');
    const results = await Promise.allSettled([writer.put(row(0)), writer.put(row(1))]);
    expect(results).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ]);
    expect(sent).toHaveLength(1);
  });
});
