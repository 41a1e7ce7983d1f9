/** Sending to one SQS queue of the resource definition by name, its URL looked up once. */
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqsClient } from './clients';

export class SqsQueue {
  private queueUrl: Promise<string> | undefined;

  constructor(
    readonly queueName: string,
    private readonly client: SQSClient = sqsClient(),
  ) {}

  /** The queue's URL, looked up on first use; a failed lookup is tried again by the next caller. */
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

  /** Sends `body` as JSON, hidden for `delaySeconds` first. */
  async send(body: unknown, delaySeconds = 0): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: await this.url(),
        MessageBody: JSON.stringify(body),
        DelaySeconds: delaySeconds,
      }),
    );
  }
}
