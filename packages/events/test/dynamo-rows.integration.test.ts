import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalBackends } from '@tessera/emulators';
import { documentClient, dynamoClient, resourceName, tables } from '@tessera/platform';
import { describe, expect, it } from 'vitest';
import { type EventRow, EventRowWriter } from '../src/dynamo-rows';

const row = (offset: number, extra: Record<string, unknown> = {}): EventRow => ({
  task_id: 'task',
  offset_key: String(offset).padStart(12, '0'),
  event: '{}',
  ...extra,
});

describe('EventRowWriter with the emulated DynamoDB (integration)', () => {
  it('stores a batch row by row when one of its rows is over the item size limit', async () => {
    const emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'rows-')));
    try {
      const table = resourceName(tables.taskEvents);
      const writer = new EventRowWriter(dynamoClient(), table);
      // Handed over in one turn, the three rows go out in one BatchWriteItem, which DynamoDB refuses whole.
      const results = await Promise.allSettled([
        writer.put(row(0)),
        writer.put(row(1, { event: 'x'.repeat(500_000) })),
        writer.put(row(2)),
      ]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const stored = async (offset: number) =>
        (
          await documentClient().send(
            new GetCommand({
              TableName: table,
              Key: { task_id: 'task', offset_key: row(offset).offset_key },
            }),
          )
        ).Item;
      expect(await stored(0)).toEqual(row(0));
      expect(await stored(1)).toBeUndefined();
      expect(await stored(2)).toEqual(row(2));
    } finally {
      await emulators.stop();
    }
  });
});
