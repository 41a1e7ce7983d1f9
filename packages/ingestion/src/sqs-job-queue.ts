/** The SQS adapter of the job queue: the ingestion queue, whose URL is looked up once. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { queues, resourceName, SqsQueue, sqsClient } from '@tessera/platform';
import type { JobMessage } from './model';
import type { JobQueue } from './ports';

export class SqsJobQueue implements JobQueue {
  private readonly queue: SqsQueue;

  constructor(
    readonly queueName: string = resourceName(queues.ingestion),
    client: SQSClient = sqsClient(),
  ) {
    this.queue = new SqsQueue(queueName, client);
  }

  url(): Promise<string> {
    return this.queue.url();
  }

  send(message: JobMessage, delaySeconds = 0): Promise<void> {
    return this.queue.send(message, delaySeconds);
  }
}
