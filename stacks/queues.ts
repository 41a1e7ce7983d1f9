/** SQS queues of the shared resource definition (`@tessera/platform`), each with its dead-letter queue. */
import { type QueueDef, queues as queueDefinitions } from '@tessera/platform/resources';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { mapDefinitions, pascalCase } from './definitions';
import type { Binding, QueueAccess, QueueKey, StoreGrants } from './grants';

export type { QueueKey } from './grants';

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
          // Its own worker reads it: the same rule as every queue's (see QueueDef).
          visibilityTimeout: Duration.seconds(definition.deadLetter.visibilityTimeoutSeconds),
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
   * Lets `fn` do with the queues what `grants` names (read their URL and attributes, or also send) and sets
   * the `envVar`s of those queues and their dead-letter queues to the queue names (functions look the URL
   * up by name). Consumers get their rights from their event source. Without `grant` only the names are
   * set (its role was granted already).
   */
  bind(fn: Binding, grants: Pick<StoreGrants, 'queues'>, grant = true): void {
    for (const [key, access] of Object.entries(grants.queues ?? {}) as [QueueKey, QueueAccess][]) {
      const definition: QueueDef = queueDefinitions[key];
      const queue = this.queues[key];
      if (grant && access === 'send') queue.grantSendMessages(fn);
      else if (grant) queue.grant(fn, 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes');
      fn.addEnvironment(definition.envVar, queue.queueName);
      const deadLetterQueue = this.deadLetterQueues[key];
      if (definition.deadLetter && deadLetterQueue) {
        fn.addEnvironment(definition.deadLetter.envVar, deadLetterQueue.queueName);
      }
    }
  }
}
