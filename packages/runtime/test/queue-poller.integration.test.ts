import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { type Emulators, setAwsEndpoints, startEmulators, useEmulatorCredentials } from '@tessera/emulators';
import { sqsClient } from '@tessera/platform';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQueuePollers } from '../src/queue-poller';

let emulators: Emulators;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-poller-'));
  useEmulatorCredentials();
  emulators = await startEmulators({ dataDir, gatewayPort: 0 });
  setAwsEndpoints(emulators);
});

afterAll(async () => {
  await emulators?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function waiting(url: string): Promise<number> {
  const { Attributes } = await sqsClient().send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

describe('startQueuePollers (integration)', () => {
  it('runs a received batch only once its `before` lets it, then deletes what was handled', async () => {
    const { QueueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: 'poller-before' }));
    const handled: string[] = [];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let asked = 0;
    const stop = await startQueuePollers(
      [
        {
          name: 'gated',
          queueName: 'poller-before',
          batchSize: 10,
          concurrency: 1,
          timeoutSeconds: 30,
          run: async (event: { Records: SQSRecord[] }) => {
            handled.push(...event.Records.map((record) => record.body));
          },
        },
      ],
      {
        before: async () => {
          asked++;
          await gate;
        },
      },
    );
    try {
      await sqsClient().send(new SendMessageCommand({ QueueUrl, MessageBody: 'first' }));
      while (asked === 0) await sleep(20);
      await sleep(200);
      expect(handled).toEqual([]);
      open();
      while (handled.length === 0) await sleep(20);
      expect(handled).toEqual(['first']);
      while ((await waiting(QueueUrl!)) > 0) await sleep(50);
    } finally {
      open();
      await stop();
    }
  });
});
