/** SQS queues of the shared resource definition (`@tessera/platform`), each with its dead-letter queue. */
import { type QueueDef, queues as queueDefinitions } from '@tessera/platform/resources';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { mapDefinitions, pascalCase } from './definitions';

export type QueueKey = keyof typeof queueDefinitions;

export class Queues extends Construct {
  readonly queues: Record<QueueKey, sqs.Queue>;
  /** The dead-letter queue of each queue whose definition has one. */
  readonly deadLetterQueues: Partial<Record<QueueKey, sqs.Queue>> = {};

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.queues = mapDefinitions(queueDefinitions, (key, definition: QueueDef) => {
      const name = pascalCase(key);
      let deadLetterQueue: sqs.DeadLetterQueue | undefined;
      if (definition.deadLetter) {
        const queue = new sqs.Queue(this, `${name}DeadLetterQueue`, {
          // The longest SQS allows, to leave time to inspect and redrive failures.
          retentionPeriod: Duration.days(14),
          encryption: sqs.QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
        });
        this.deadLetterQueues[key] = queue;
        // Anything in a dead-letter queue is a job that failed every delivery: someone should look.
        new cloudwatch.Alarm(this, `${name}DeadLetterAlarm`, {
          alarmDescription: `Messages in the ${definition.name} dead-letter queue: jobs that failed ${definition.deadLetter.maxReceiveCount} deliveries`,
          metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        });
        deadLetterQueue = { queue, maxReceiveCount: definition.deadLetter.maxReceiveCount };
      }
      return new sqs.Queue(this, `${name}Queue`, {
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        deadLetterQueue,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
    });
  }

  /**
   * Lets `fn` send to every queue and sets the `envVar`s of the queues and their dead-letter queues to the
   * queue names (functions look the URL up by name). Consumers get their rights from their event source.
   */
  bind(fn: lambda.Function): void {
    for (const key of Object.keys(this.queues) as QueueKey[]) {
      const definition: QueueDef = queueDefinitions[key];
      this.queues[key].grantSendMessages(fn);
      fn.addEnvironment(definition.envVar, this.queues[key].queueName);
      const deadLetterQueue = this.deadLetterQueues[key];
      if (definition.deadLetter && deadLetterQueue) {
        fn.addEnvironment(definition.deadLetter.envVar, deadLetterQueue.queueName);
      }
    }
  }
}
