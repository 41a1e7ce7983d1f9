/** The AWS adapters of ingestion's ports pass their contracts against the emulators (S3, SQS, DynamoDB). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { sqsClient } from '@tessera/platform';
import { blobStoreContract, jobQueueContract, jobRepositoryContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoJobRepository, type JobMessage, S3BlobStore, SqsJobQueue } from '../src';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'ingestion-')));
});

afterAll(async () => {
  await emulators?.stop();
});

blobStoreContract('S3BlobStore', () => ({
  store: new S3BlobStore(),
  async putPresigned(url, body, headers) {
    const answer = await fetch(url, { method: 'PUT', body, headers });
    return answer.ok;
  },
  checksSignedLength: false,
}));

let queue: SqsJobQueue | undefined;
jobQueueContract('SqsJobQueue', () => {
  queue ??= new SqsJobQueue();
  const sqs = queue;
  return {
    queue: sqs,
    async receive() {
      const { Messages = [] } = await sqsClient().send(
        new ReceiveMessageCommand({ QueueUrl: await sqs.url(), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      if (Messages.length > 0) {
        await sqsClient().send(
          new DeleteMessageBatchCommand({
            QueueUrl: await sqs.url(),
            Entries: Messages.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle! })),
          }),
        );
      }
      return Messages.map((message) => JSON.parse(message.Body!) as JobMessage);
    },
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
});

jobRepositoryContract('DynamoJobRepository', (now) => new DynamoJobRepository(undefined, now));
