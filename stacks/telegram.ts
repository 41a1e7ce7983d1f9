/**
 * The Telegram gateway in AWS (webhook mode): a function URL Telegram posts updates to (the webhook function
 * checks the secret-token header, records the update id, hands the update to the FIFO queue grouped by chat
 * and answers), the worker reading that queue, which runs the bot on each update against the API's URL, and
 * the outbound delivery, started every minute, draining every poll interval until the next start.
 * The bot token and the webhook secret reach the functions only as Secrets Manager or SSM references. Set
 * the webhook once deployed: `setWebhook` with the output URL and the same secret.
 */
import { telegramFunctions } from '@tessera/functions/routes';
import { CfnOutput, Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { FunctionUrlAuthType } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Functions } from './functions';

export const UPDATES_QUEUE_VARIABLE = 'TESSERA_TELEGRAM_UPDATES_QUEUE_URL';
export const RUNTIME_URL_VARIABLE = 'TESSERA_RUNTIME_URL';

export interface TelegramProps {
  functions: Functions;
  /** The runtime the worker's bot calls: the HTTP API's URL. */
  runtimeUrl: string;
}

export class TelegramWebhook extends Construct {
  readonly webhook: lambda.Function;
  readonly worker: lambda.Function;
  readonly queue: sqs.Queue;
  readonly url: lambda.FunctionUrl;
  readonly delivery: lambda.Function;

  constructor(scope: Construct, id: string, props: TelegramProps) {
    super(scope, id);
    const { webhook, worker, delivery } = telegramFunctions;
    const deadLetters = new sqs.Queue(this, 'UpdatesDead', {
      fifo: true,
      retentionPeriod: Duration.days(14),
      enforceSSL: true,
    });
    this.queue = new sqs.Queue(this, 'Updates', {
      fifo: true,
      // The webhook deduplicates by update id, which SQS also does within its 5 minutes.
      contentBasedDeduplication: false,
      // Six times the worker's timeout, as AWS advises for an event source.
      visibilityTimeout: Duration.seconds(worker.timeoutSeconds * 6),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
      enforceSSL: true,
    });
    this.webhook = props.functions.create(this, {
      name: 'TelegramWebhook',
      handler: webhook.handler,
      description: "Telegram's webhook: checks the secret token, records the update, queues it by chat",
      timeoutSeconds: webhook.timeoutSeconds,
    });
    this.webhook.addEnvironment(UPDATES_QUEUE_VARIABLE, this.queue.queueUrl);
    this.queue.grantSendMessages(this.webhook);
    this.url = this.webhook.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });

    this.worker = props.functions.create(this, {
      name: 'TelegramWorker',
      handler: worker.handler,
      description: 'Runs the Telegram bot on each queued update, one chat in order',
      timeoutSeconds: worker.timeoutSeconds,
      memoryMb: worker.memoryMb,
    });
    this.worker.addEnvironment(RUNTIME_URL_VARIABLE, props.runtimeUrl);
    this.worker.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }),
    );
    this.delivery = props.functions.create(this, {
      name: 'TelegramDelivery',
      handler: delivery.handler,
      description: 'Drains the outbound queue and sends its messages to Telegram for a minute',
      timeoutSeconds: delivery.timeoutSeconds,
    });
    this.delivery.addEnvironment(RUNTIME_URL_VARIABLE, props.runtimeUrl);
    new events.Rule(this, 'DeliverySchedule', {
      schedule: events.Schedule.rate(Duration.minutes(1)),
      targets: [new targets.LambdaFunction(this.delivery, { retryAttempts: 0 })],
      description: 'Starts the Telegram outbound delivery every minute',
    });
    new CfnOutput(this, 'WebhookUrl', {
      value: this.url.url,
      description: "Telegram's webhook (setWebhook with TELEGRAM_WEBHOOK_SECRET as its secret_token)",
    });
  }
}
