/**
 * The queue workers of the route table, each fed by its queue, and what feeds the queues: objects created
 * under a notified bucket prefix are queued for the workers.
 */
import { type QueueWorkerDef, queueWorkers as sharedQueueWorkers } from '@tessera/functions/routes';
import { bucketNotifications } from '@tessera/platform/resources';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import { Construct } from 'constructs';
import { pascalCase } from './definitions';
import type { Functions } from './functions';
import type { Queues } from './queues';
import type { Storage } from './storage';

export interface WorkersProps {
  functions: Functions;
  storage: Storage;
  queues: Queues;
  /** Defaults to the shared queue workers. */
  queueWorkers?: readonly QueueWorkerDef[];
}

export class Workers extends Construct {
  /** Every worker's function by the worker's name. */
  readonly functions = new Map<string, lambda.Function>();

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const queueWorkers = props.queueWorkers ?? sharedQueueWorkers;
    props.functions.bundle(queueWorkers.map((worker) => worker.handler));
    for (const worker of queueWorkers) this.addQueueWorker(worker, props);
    for (const notification of bucketNotifications) {
      props.storage.buckets[notification.bucket].addEventNotification(
        s3.EventType.OBJECT_CREATED,
        new s3n.SqsDestination(props.queues.queues[notification.queue]),
        { prefix: notification.prefix },
      );
    }
  }

  /**
   * A queue's worker: an SQS event source mapping reporting partial batch failures, so only the failed
   * messages of a batch are redelivered (and go to the dead-letter queue after its receive limit).
   */
  private addQueueWorker(worker: QueueWorkerDef, { functions, queues }: WorkersProps): void {
    const queue = worker.deadLetter ? queues.deadLetterQueues[worker.queue] : queues.queues[worker.queue];
    if (!queue)
      throw new Error(`Queue worker ${worker.name} reads a dead-letter queue ${worker.queue} has not`);
    const fn = functions.create(this, {
      name: `${pascalCase(worker.name)}Worker`,
      handler: worker.handler,
      description: `Queue worker ${worker.name}`,
      timeoutSeconds: worker.timeoutSeconds,
      memoryMb: worker.memoryMb,
    });
    this.functions.set(worker.name, fn);
    fn.addEventSource(
      new SqsEventSource(queue, {
        batchSize: worker.batchSize,
        reportBatchItemFailures: true,
        // Lambda's floor for a mapping's maximum concurrency is 2.
        maxConcurrency: Math.max(2, worker.concurrency),
      }),
    );
  }
}
