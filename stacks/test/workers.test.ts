import { queueWorkers, splitHandler } from '@tessera/functions/routes';
import { bucketNotifications, queues } from '@tessera/platform/resources';
import { MODULE_GRANTS, type Queues, type Storage, Workers } from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

describe('Workers', () => {
  let shared: { stack: Stack; storage: Storage; queues: Queues; workers: Workers; template: Template };

  beforeAll(() => {
    const { stack, storage, queues: queueConstruct, functions } = compose(apps.create(), 'WorkersTest');
    const workers = new Workers(stack, 'Workers', { functions, storage, queues: queueConstruct });
    shared = { stack, storage, queues: queueConstruct, workers, template: Template.fromStack(stack) };
  });

  it('feeds each queue worker from its queue with partial batch failures, in a function of its own', () => {
    const { stack, workers, queues: queueConstruct, template } = shared;
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', queueWorkers.length);
    for (const worker of queueWorkers) {
      const fn = workers.functions.get(worker.name)!;
      const queue = worker.deadLetter
        ? queueConstruct.deadLetterQueues[worker.queue]!
        : queueConstruct.queues[worker.queue];
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: logicalId(stack, fn) },
        EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, queue), 'Arn'] },
        BatchSize: worker.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      const properties = template.toJSON().Resources[logicalId(stack, fn)].Properties;
      expect(properties.Handler).toBe(`index.${splitHandler(worker.handler).exportName}`);
      expect(properties.Timeout).toBe(worker.timeoutSeconds);
      // Lambda refuses a mapping whose queue hides messages for less time than the function may run, and
      // AWS advises six times the function's timeout. A dead-letter worker's queue is the dead-letter queue.
      const definition = queues[worker.queue];
      const visibility = worker.deadLetter
        ? definition.deadLetter.visibilityTimeoutSeconds
        : definition.visibilityTimeoutSeconds;
      expect(visibility, worker.name).toBeGreaterThanOrEqual(6 * worker.timeoutSeconds);
      template.hasResourceProperties('AWS::SQS::Queue', Match.objectLike({ VisibilityTimeout: visibility }));
      expect(
        template.toJSON().Resources[logicalId(stack, queue)].Properties.VisibilityTimeout,
        worker.name,
      ).toBe(visibility);
    }
  });
  it('writes completed agent runs from their queue, dead-lettered after 5 receives, which the agent routes send to', () => {
    const { stack, workers, queues: queueConstruct, template } = shared;
    const worker = queueWorkers.find((w) => w.queue === 'agentRuns')!;
    expect(worker.handler).toBe('workers/agent-runs.recordRuns');
    const fn = workers.functions.get(worker.name)!;
    const queue = queueConstruct.queues.agentRuns;
    const dead = queueConstruct.deadLetterQueues.agentRuns!;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(stack, fn) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(template.toJSON().Resources[logicalId(stack, queue)].Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, dead), 'Arn'] },
      maxReceiveCount: 5,
    });
    // The worker consumes (its event source grants that) and sends nothing; it writes memories and pages.
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(logicalId(stack, fn.role!)),
    );
    const actions = JSON.stringify(policies.map((policy) => policy.Properties.PolicyDocument.Statement));
    expect(actions).not.toContain('sqs:SendMessage');
    expect(actions).toContain('sqs:ReceiveMessage');
    expect(actions).toContain('s3:PutObject');
    for (const module of ['http/agents', 'http/chat', 'http/ag-ui'])
      expect(MODULE_GRANTS[module]!.queues, module).toEqual({ agentRuns: 'send' });
  });

  it('notifies the queue of objects created under each notified bucket prefix', () => {
    const { stack, storage, queues: queueConstruct, template } = shared;
    expect(bucketNotifications.length).toBeGreaterThan(0);
    for (const notification of bucketNotifications) {
      template.hasResourceProperties('Custom::S3BucketNotifications', {
        BucketName: { Ref: logicalId(stack, storage.buckets[notification.bucket]) },
        NotificationConfiguration: {
          QueueConfigurations: Match.arrayWith([
            Match.objectLike({
              Events: ['s3:ObjectCreated:*'],
              QueueArn: {
                'Fn::GetAtt': [logicalId(stack, queueConstruct.queues[notification.queue]), 'Arn'],
              },
              Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: notification.prefix }] } },
            }),
          ]),
        },
      });
    }
  });
});
