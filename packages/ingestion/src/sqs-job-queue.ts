/** The SQS adapter of the job queue: the ingestion queue, whose URL is looked up once. */
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queues, resourceName, sqsClient } from '@tessera/platform';
import type { JobMessage } from './model';
import type { JobQueue } from './ports';

export class SqsJobQueue implements JobQueue {
  private queueUrl: Promise<string> | undefined;

  constructor(
    readonly queueName: string = resourceName(queues.ingestion),
    private readonly client: SQSClient = sqsClient(),
  ) {}

  /** The queue's URL, looked up on first use; a failed lookup is tried again by the next send. */
  url(): Promise<string> {
    this.queueUrl ??= this.client
      .send(new GetQueueUrlCommand({ QueueName: this.queueName }))
      .then((answer) => answer.QueueUrl!)
      .catch((error: unknown) => {
        this.queueUrl = undefined;
        throw error;
      });
    return this.queueUrl;
  }

  async send(message: JobMessage, delaySeconds = 0): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: await this.url(),
        MessageBody: JSON.stringify(message),
        DelaySeconds: delaySeconds,
      }),
    );
  }
}
