/** The webhook's FIFO queue of updates: one message group a chat, deduplicated by update id. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqsClient } from '@tessera/platform';
import type { UpdateQueue } from './webhook-intake';

export class SqsUpdateQueue implements UpdateQueue {
  constructor(
    private readonly queueUrl: string,
    private readonly client: SQSClient = sqsClient(),
  ) {}

  async send(update: Record<string, unknown>, groupId: string, deduplicationId: string): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(update),
        MessageGroupId: groupId,
        MessageDeduplicationId: deduplicationId,
      }),
    );
  }
}
