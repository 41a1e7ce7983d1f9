import { queueWorkers, routes, schedules } from '@tessera/functions/routes';
import { buckets, queues, tables } from '@tessera/platform/resources';
import {
  Api,
  type Functions,
  LAMBDA_CONFIG_DIR,
  type QueueKey,
  type Queues,
  Schedules,
  type Storage,
  Workers,
} from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

describe('Functions', () => {
  let shared: {
    stack: Stack;
    storage: Storage;
    queues: Queues;
    functions: Functions;
    api: Api;
    workers: Workers;
    schedules: Schedules;
    template: Template;
  };

  beforeAll(() => {
    const composed = compose(apps.create(), 'FunctionsTest');
    const { stack, storage, queues: queueConstruct, functions } = composed;
    const api = new Api(stack, 'Api', { functions });
    const workers = new Workers(stack, 'Workers', { functions, storage, queues: queueConstruct });
    const schedules = new Schedules(stack, 'Schedules', { functions });
    shared = { ...composed, api, workers, schedules, template: Template.fromStack(stack) };
  });

  it('gives every function the stage, search URI, config dir and the resource variables', () => {
    const { stack, storage, queues: queueConstruct, template } = shared;
    const variables: Record<string, unknown> = {
      TESSERA_STAGE: 'test',
      TESSERA_CONFIG_DIR: LAMBDA_CONFIG_DIR,
      TESSERA_SEARCH_URI: {
        'Fn::Join': ['', ['s3://', { Ref: logicalId(stack, storage.buckets.search) }, '/lancedb']],
      },
    };
    for (const [key, table] of Object.entries(storage.tables)) {
      variables[tables[key as keyof typeof tables].envVar] = { Ref: logicalId(stack, table) };
    }
    for (const [key, bucket] of Object.entries(storage.buckets)) {
      variables[buckets[key as keyof typeof buckets].envVar] = { Ref: logicalId(stack, bucket) };
    }
    const queueName = (queue: IConstruct) => ({ 'Fn::GetAtt': [logicalId(stack, queue), 'QueueName'] });
    for (const [key, queue] of Object.entries(queueConstruct.queues)) {
      const definition = queues[key as QueueKey];
      variables[definition.envVar] = queueName(queue);
      variables[definition.deadLetter.envVar] = queueName(queueConstruct.deadLetterQueues[key as QueueKey]!);
    }

    const ours = [shared.api, shared.workers, shared.schedules]
      .flatMap((construct) => [...construct.functions.values()])
      .map((fn) => logicalId(stack, fn));
    expect(new Set(ours).size).toBe(routes.length + 1 + schedules.length + queueWorkers.length);
    // Besides ours, CDK's own handler that applies bucket notifications.
    template.resourceCountIs('AWS::Lambda::Function', ours.length + 1);
    const resources = template.toJSON().Resources;
    for (const id of ours) expect(resources[id].Properties.Environment.Variables, id).toEqual(variables);
  });

  it('ships one search layer for the functions of every construct that load LanceDB', () => {
    const { stack, api, workers, schedules: scheduleConstruct, template } = shared;
    template.resourceCountIs('AWS::Lambda::LayerVersion', 1);
    const layerRef = { Ref: Object.keys(template.findResources('AWS::Lambda::LayerVersion'))[0] };
    const resources = template.toJSON().Resources;
    for (const fn of [
      api.functions.get('GET /health')!,
      workers.functions.get('ingestion-worker')!,
      scheduleConstruct.functions.get('tenant-recovery')!,
    ]) {
      expect(resources[logicalId(stack, fn)].Properties.Layers, fn.node.path).toEqual([layerRef]);
    }
  });

  it('creates a function in the scope it is asked for, with the defaults and the rights it needs', () => {
    const { stack, functions } = compose(apps.create(), 'FunctionTest');
    const fn = functions.create(stack, {
      name: 'Probe',
      handler: 'http/health.health',
      description: 'probe',
    });
    expect(fn).toBeInstanceOf(lambda.Function);
    expect(fn.node.path).toBe('FunctionTest/ProbeFunction');
    const synthesized = Template.fromStack(stack);
    synthesized.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.health',
      Runtime: 'nodejs22.x',
      Timeout: 30,
      MemorySize: 1024,
      Description: 'probe',
      Environment: { Variables: { TESSERA_STAGE: 'test', TESSERA_CONFIG_DIR: LAMBDA_CONFIG_DIR } },
    });
    synthesized.resourceCountIs('AWS::IAM::Policy', 1);
  });
});
