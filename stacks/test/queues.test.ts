import { queueWorkers } from '@tessera/functions/routes';
import { queues } from '@tessera/platform/resources';
import { type QueueKey, Queues } from '@tessera/stacks';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

const queueKeys = Object.keys(queues) as QueueKey[];

describe('Queues', () => {
  let stack: Stack;
  let construct: Queues;
  let template: Template;
  const logicalId = (queue: IConstruct) => stack.getLogicalId(queue.node.defaultChild as CfnElement);

  beforeAll(() => {
    stack = new Stack(apps.create(), 'QueuesTest');
    construct = new Queues(stack, 'Queues');
    const producer = new lambda.Function(stack, 'Producer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => {};'),
    });
    construct.bind(producer, { queues: Object.fromEntries(queueKeys.map((key) => [key, 'send'])) });
    const prober = new lambda.Function(stack, 'Prober', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.probe',
      code: lambda.Code.fromInline('exports.probe = async () => {};'),
    });
    construct.bind(prober, { queues: { ingestion: 'describe' } });
    template = Template.fromStack(stack);
  });

  it('creates every queue of the shared definition, each with its dead-letter queue', () => {
    const deadLetters = queueKeys.filter((key) => queues[key].deadLetter).length;
    template.resourceCountIs('AWS::SQS::Queue', queueKeys.length + deadLetters);
    for (const key of queueKeys) {
      const definition = queues[key];
      const deadLetterQueue = construct.deadLetterQueues[key];
      expect(deadLetterQueue, key).toBeDefined();
      template.hasResourceProperties('AWS::SQS::Queue', {
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(deadLetterQueue!), 'Arn'] },
          maxReceiveCount: definition.deadLetter.maxReceiveCount,
        },
      });
    }
  });

  it('hides a dead-letter message six times as long as its worker may run', () => {
    const worker = queueWorkers.find((candidate) => candidate.deadLetter && candidate.queue === 'ingestion')!;
    expect(queues.ingestion.deadLetter.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
      6 * worker.timeoutSeconds,
    );
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: queues.ingestion.deadLetter.visibilityTimeoutSeconds,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it("lets a function granted `describe` read a queue's URL and attributes, not send", () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes('ProberServiceRole'),
    );
    const actions = policies.flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap(
        (s) => s.Action,
      ),
    );
    expect(actions.sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl']);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.probe',
      Environment: { Variables: Match.objectLike({ [queues.ingestion.envVar]: Match.anyValue() }) },
    });
  });

  it('moves an ingestion message to the dead-letter queue after 5 receives', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(construct.deadLetterQueues.ingestion!), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
  });

  it('encrypts every queue and denies requests without TLS', () => {
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    const all = queueKeys.flatMap((key) => [construct.queues[key], construct.deadLetterQueues[key]!]);
    for (const queue of all) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('lets a bound function send and sets the envVars of queues and dead-letter queues to their names', () => {
    const variables: Record<string, unknown> = {};
    for (const key of queueKeys) {
      const name = (queue: IConstruct) => ({ 'Fn::GetAtt': [logicalId(queue), 'QueueName'] });
      variables[queues[key].envVar] = name(construct.queues[key]);
      variables[queues[key].deadLetter.envVar] = name(construct.deadLetterQueues[key]!);
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Action: Match.arrayWith(['sqs:SendMessage']),
              Resource: { 'Fn::GetAtt': [logicalId(construct.queues[key]), 'Arn'] },
            }),
          ]),
        },
      });
    }
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Environment: { Variables: variables },
    });
  });

  it('raises an alarm as soon as a dead-letter queue holds a message', () => {
    for (const key of queueKeys) {
      const deadLetterQueue = construct.deadLetterQueues[key];
      if (!deadLetterQueue) continue;
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(deadLetterQueue), 'QueueName'] } },
        ],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
      });
    }
  });
});
