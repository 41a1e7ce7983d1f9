/**
 * A queue consumer as Lambda's SQS event source mapping is one: a message at a time, hidden while its job
 * runs (the visibility extended at half its length, so a long video is not delivered twice), deleted once
 * handled, left for redelivery when its handler reports it failed.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { log } from '@tessera/core';
import type { SQSRecord } from 'aws-lambda';

export interface ConsumeOptions {
  sqs: SQSClient;
  queueUrl: string;
  /** Lambda's contract: the ids of the records that failed. */
  handle(records: SQSRecord[]): Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
  signal: AbortSignal;
  waitSeconds: number;
  visibilitySeconds: number;
}

export async function consumeQueue(options: ConsumeOptions): Promise<void> {
  const { sqs, queueUrl, signal } = options;
  while (!signal.aborted) {
    let messages: Message[] | undefined;
    try {
      ({ Messages: messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: options.waitSeconds,
          VisibilityTimeout: options.visibilitySeconds,
          MessageSystemAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      ));
    } catch (error) {
      if (signal.aborted) return;
      log.warn('media worker: receive failed', { queue: queueUrl, error });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    for (const message of messages ?? []) {
      const extend = setInterval(
        () => {
          void sqs
            .send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: queueUrl,
                ReceiptHandle: message.ReceiptHandle!,
                VisibilityTimeout: options.visibilitySeconds,
              }),
            )
            .catch(() => undefined);
        },
        (options.visibilitySeconds * 1000) / 2,
      );
      let failed = true;
      try {
        const record: SQSRecord = {
          messageId: message.MessageId!,
          receiptHandle: message.ReceiptHandle!,
          body: message.Body ?? '',
          attributes: {
            ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
            SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
            SenderId: message.Attributes?.SenderId ?? '',
            ApproximateFirstReceiveTimestamp: message.Attributes?.ApproximateFirstReceiveTimestamp ?? '',
          },
          messageAttributes: {},
          md5OfBody: message.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: '',
          awsRegion: '',
        };
        const { batchItemFailures } = await options.handle([record]);
        failed = batchItemFailures.length > 0;
      } catch (error) {
        log.error('media worker: a message failed; it will be redelivered', {
          message: message.MessageId,
          error,
        });
      } finally {
        clearInterval(extend);
      }
      if (!failed) {
        await sqs
          .send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }))
          .catch((error: unknown) => log.warn('media worker: could not delete a handled message', { error }));
      }
    }
  }
}
