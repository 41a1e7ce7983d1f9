/**
 * Writes event rows in batches. Rows handed over while a batch is in flight wait and go together in the
 * next one, so concurrent appends, across tasks as within one, share BatchWriteItem requests instead of
 * sending a PutItem each; a lone row goes out at once, with no timer to wait for. Removals of trimmed rows
 * go the same way. Rows are marshalled here and sent with the plain client (see `dynamoClient`).
 */
import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { BATCH_WRITE_ITEMS, resending, slices } from '@tessera/platform';

/** An event row's key: the task and its zero-padded offset. */
export type EventKey = { task_id: string; offset_key: string };
/** An event row: its key and the event. */
export type EventRow = EventKey & Record<string, unknown>;

interface Waiting {
  /** The write as BatchWriteItem takes it, marshalled. */
  write: WriteRequest;
  /** Task and offset: what DynamoDB names when it leaves the write unprocessed. */
  key: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const keyOf = (item: Record<string, { S?: string }> | undefined) =>
  `${item?.task_id?.S}/${item?.offset_key?.S}`;

export class EventRowWriter {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly table: string,
  ) {}

  /** Resolves once the row is stored. */
  put(row: EventRow): Promise<void> {
    return this.enqueue({ PutRequest: { Item: marshall(row, { removeUndefinedValues: true }) } }, row);
  }

  /** Resolves once the row is gone. */
  remove(key: EventKey): Promise<void> {
    return this.enqueue({ DeleteRequest: { Key: marshall(key) } }, key);
  }

  private enqueue(write: WriteRequest, key: EventKey): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ write, key: `${key.task_id}/${key.offset_key}`, resolve, reject });
      if (this.writing) return;
      this.writing = true;
      // Rows handed over in the same turn of the event loop go in the first batch.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const waiting = this.waiting;
      this.waiting = [];
      await Promise.all(slices(waiting, BATCH_WRITE_ITEMS).map((batch) => this.write(batch)));
    }
    this.writing = false;
  }

  private async write(batch: Waiting[]): Promise<void> {
    try {
      await this.send(batch);
    } catch (error) {
      if (batch.length > 1 && (error as Error).name === 'ValidationException') {
        // One bad row (over DynamoDB's item size) refuses the whole batch: alone, it fails only its append.
        await Promise.all(batch.map((waiting) => this.write([waiting])));
        return;
      }
      for (const waiting of batch) waiting.reject(error);
    }
  }

  /** Stores the batch, resolving each row once DynamoDB has processed it. */
  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      const { write, resolve } = batch[0]!;
      if (write.PutRequest) {
        await this.client.send(new PutItemCommand({ TableName: this.table, Item: write.PutRequest.Item }));
      } else {
        await this.client.send(
          new DeleteItemCommand({ TableName: this.table, Key: write.DeleteRequest!.Key }),
        );
      }
      resolve();
      return;
    }
    await resending('event rows', batch, async (pending) => {
      const { UnprocessedItems } = await this.client.send(
        new BatchWriteItemCommand({
          RequestItems: { [this.table]: pending.map(({ write }) => write) },
        }),
      );
      const unprocessed = new Set(
        (UnprocessedItems?.[this.table] ?? []).map((write) =>
          keyOf(write.PutRequest?.Item ?? write.DeleteRequest?.Key),
        ),
      );
      for (const waiting of pending) if (!unprocessed.has(waiting.key)) waiting.resolve();
      return pending.filter((waiting) => unprocessed.has(waiting.key));
    });
  }
}
