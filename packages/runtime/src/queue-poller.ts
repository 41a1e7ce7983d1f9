/**
 * Feeds queue messages to worker handlers as Lambda's SQS event source mapping does: batches of records,
 * partial batch failures (`batchItemFailures`) left for redelivery, everything else deleted; a handler that
 * throws leaves its whole batch.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { log, withDeadline } from '@tessera/core';
import { platformEnv, sqsClient } from '@tessera/platform';
import type { Context, SQSRecord } from 'aws-lambda';
import { lambdaContext } from './lambda-shim';

export interface LoadedQueueWorker {
  name: string;
  /** Physical queue name. */
  queueName: string;
  batchSize: number;
  concurrency: number;
  /** The function's timeout: its context says how much of it is left, and a handler past it is given up. */
  timeoutSeconds: number;
  /** Visibility timeout of the messages it receives; default the poller's option, else the queue's own. */
  visibilitySeconds?: number;
  run: (event: { Records: SQSRecord[] }, context: Context) => Promise<unknown>;
}

interface PollerOptions {
  /** Visibility timeout of received messages; default the queue's own. */
  visibilitySeconds?: number;
  /** What a received batch waits for before its handler runs (the API's quiet, in the runtime). */
  before?: (signal: AbortSignal) => Promise<void>;
}

async function queueUrl(name: string): Promise<string> {
  const answer = await sqsClient().send(new GetQueueUrlCommand({ QueueName: name }));
  return answer.QueueUrl!;
}

export async function startQueuePollers(
  workers: LoadedQueueWorker[],
  options: PollerOptions = {},
): Promise<() => Promise<void>> {
  const sqs = sqsClient();
  const controller = new AbortController();
  const loops: Promise<void>[] = [];

  for (const worker of workers) {
    const visibilitySeconds = worker.visibilitySeconds ?? options.visibilitySeconds;
    const url = await queueUrl(worker.queueName);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    const arn = Attributes?.QueueArn ?? `arn:aws:sqs:local:000000000000:${worker.queueName}`;
    const poll = async () => {
      while (!controller.signal.aborted) {
        let messages: Message[] | undefined;
        try {
          ({ Messages: messages } = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: url,
              MaxNumberOfMessages: worker.batchSize,
              WaitTimeSeconds: 1,
              VisibilityTimeout: visibilitySeconds,
              MessageSystemAttributeNames: ['All'],
            }),
            { abortSignal: controller.signal },
          ));
        } catch (error) {
          if (controller.signal.aborted) return;
          log.warn('queue poll failed', { queue: worker.queueName, error });
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        if (!messages?.length) continue;
        await options.before?.(controller.signal);
        const records: SQSRecord[] = messages.map((message) => ({
          messageId: message.MessageId!,
          receiptHandle: message.ReceiptHandle!,
          body: message.Body ?? '',
          attributes: {
            ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
            SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
            SenderId: message.Attributes?.SenderId ?? 'local',
            ApproximateFirstReceiveTimestamp:
              message.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
          },
          messageAttributes: {},
          md5OfBody: message.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: arn,
          awsRegion: platformEnv.awsRegion,
        }));
        let failed = new Set<string>(records.map((record) => record.messageId));
        // As Lambda does by requiring a visibility timeout longer than the function's, a batch stays hidden
        // while its handler runs; a process that dies stops extending it, and the batch is redelivered.
        const extend = visibilitySeconds
          ? setInterval(
              () => {
                void sqs
                  .send(
                    new ChangeMessageVisibilityBatchCommand({
                      QueueUrl: url,
                      Entries: messages!.map((message, index) => ({
                        Id: String(index),
                        ReceiptHandle: message.ReceiptHandle!,
                        VisibilityTimeout: visibilitySeconds,
                      })),
                    }),
                  )
                  .catch(() => undefined);
              },
              (visibilitySeconds * 1000) / 2,
            )
          : undefined;
        try {
          // Lambda stops a function at its timeout and the batch comes back after the visibility timeout.
          const answer = (await withDeadline(
            worker.run({ Records: records }, lambdaContext(worker.name, worker.timeoutSeconds)),
            worker.timeoutSeconds * 1000,
            () => new Error(`${worker.name} timed out after ${worker.timeoutSeconds} s`),
          )) as { batchItemFailures?: { itemIdentifier: string }[] } | undefined;
          failed = new Set((answer?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
        } catch (error) {
          log.error('queue worker failed its batch; it will be redelivered', { worker: worker.name, error });
        } finally {
          clearInterval(extend);
        }
        const done = messages.filter((message) => !failed.has(message.MessageId!));
        if (done.length === 0) continue;
        await sqs
          .send(
            new DeleteMessageBatchCommand({
              QueueUrl: url,
              Entries: done.map((message, index) => ({
                Id: String(index),
                ReceiptHandle: message.ReceiptHandle!,
              })),
            }),
          )
          .catch((error: unknown) =>
            log.warn('could not delete handled messages', { worker: worker.name, error }),
          );
      }
    };
    for (let i = 0; i < worker.concurrency; i++) loops.push(poll());
  }
  return async () => {
    controller.abort();
    await Promise.allSettled(loops);
  };
}
