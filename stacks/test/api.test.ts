import {
  fallbackHandler,
  queueWorkers,
  type RouteDef,
  routes,
  schedules,
  splitHandler,
} from '@tessera/functions/routes';
import { bucketNotifications, buckets, queues, tables } from '@tessera/platform/resources';
import {
  Api,
  type ApiProps,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
  LAMBDA_CONFIG_DIR,
  type QueueKey,
  Queues,
  Storage,
} from '@tessera/stacks';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApps } from './support';

interface Synthesized {
  stack: Stack;
  storage: Storage;
  queues: Queues;
  api: Api;
  template: Template;
}

const apps = testApps();
afterAll(apps.remove);

function synthesize(props: Pick<ApiProps, 'routes' | 'schedules'> = {}): Synthesized {
  const stack = new Stack(apps.create(), 'ApiTest');
  const storage = new Storage(stack, 'Storage');
  const queueConstruct = new Queues(stack, 'Queues');
  const api = new Api(stack, 'Api', { stage: 'test', storage, queues: queueConstruct, ...props });
  return { stack, storage, queues: queueConstruct, api, template: Template.fromStack(stack) };
}

/** Streaming routes are served by Function URLs, not API routes. */
const apiRoutes = routes.filter((route) => !route.streaming);

const logicalId = (stack: Stack, construct: IConstruct) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** Each API route key with the logical id and properties of the function its integration invokes. */
function functionsByRouteKey(
  template: Template,
): Map<string, { id: string; properties: Record<string, unknown> }> {
  const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
  const functions = template.findResources('AWS::Lambda::Function');
  const result = new Map<string, { id: string; properties: Record<string, unknown> }>();
  for (const route of Object.values(template.findResources('AWS::ApiGatewayV2::Route'))) {
    const integrationId: string = route.Properties.Target['Fn::Join'][1][1].Ref;
    const functionId: string = integrations[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0];
    result.set(route.Properties.RouteKey, { id: functionId, properties: functions[functionId]!.Properties });
  }
  return result;
}

describe('Api', () => {
  let shared: Synthesized;

  beforeAll(() => {
    shared = synthesize();
  });

  it('has exactly one route per entry of the route table, plus $default', () => {
    const keys = Object.values(shared.template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );
    expect(keys.sort()).toEqual([...apiRoutes.map((r) => `${r.method} ${r.path}`), '$default'].sort());
  });

  it('integrates each route with a function of its own that runs the route handler', () => {
    const byKey = functionsByRouteKey(shared.template);
    for (const route of apiRoutes) {
      const target = byKey.get(`${route.method} ${route.path}`);
      expect(target?.properties, route.path).toMatchObject({
        Handler: `index.${splitHandler(route.handler).exportName}`,
        Runtime: 'nodejs22.x',
        Architectures: ['x86_64'],
        Timeout: route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
        MemorySize: route.memoryMb ?? DEFAULT_MEMORY_MB,
      });
    }
    const ids = new Set([...byKey.values()].map((target) => target.id));
    expect(ids.size).toBe(apiRoutes.length + 1);
    shared.template.allResourcesProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('sends every request no route matches to the fallback handler', () => {
    const fallback = functionsByRouteKey(shared.template).get('$default');
    expect(fallback?.properties.Handler).toBe(`index.${splitHandler(fallbackHandler).exportName}`);
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

    const ours = [...shared.api.functions.values()].map((fn) => logicalId(stack, fn));
    expect(new Set(ours).size).toBe(routes.length + 1 + schedules.length + queueWorkers.length);
    // Besides ours, CDK's own handler that applies bucket notifications.
    template.resourceCountIs('AWS::Lambda::Function', ours.length + 1);
    const resources = template.toJSON().Resources;
    for (const id of ours) expect(resources[id].Properties.Environment.Variables, id).toEqual(variables);
  });

  it('ships one code asset per handler module, shared by the functions of its routes', () => {
    const byKey = functionsByRouteKey(shared.template);
    const keyOfModule = new Map<string, Set<unknown>>();
    for (const route of apiRoutes) {
      const { module } = splitHandler(route.handler);
      const code = byKey.get(`${route.method} ${route.path}`)?.properties.Code as { S3Key: string };
      keyOfModule.set(module, (keyOfModule.get(module) ?? new Set()).add(code.S3Key));
    }
    for (const [module, keys] of keyOfModule) expect(keys.size, module).toBe(1);
    const allKeys = new Set([...keyOfModule.values()].flatMap((keys) => [...keys]));
    expect(allKeys.size).toBe(keyOfModule.size);
  });

  it('attaches the search layer to functions that load LanceDB and not to the fallback', () => {
    const { stack, api, template } = shared;
    template.resourceCountIs('AWS::Lambda::LayerVersion', 1);
    template.hasResourceProperties('AWS::Lambda::LayerVersion', {
      CompatibleRuntimes: ['nodejs22.x'],
      CompatibleArchitectures: ['x86_64'],
    });
    const layer = template.findResources('AWS::Lambda::LayerVersion');
    const layerRef = { Ref: Object.keys(layer)[0] };
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.health',
      Layers: [layerRef],
    });
    const fallbackId = logicalId(stack, api.functions.get('$default')!);
    expect(template.toJSON().Resources[fallbackId].Properties.Layers).toBeUndefined();
  });

  it('runs each schedule at its rate, invoking a function with its handler', () => {
    const { stack, api, template } = shared;
    template.resourceCountIs('AWS::Scheduler::Schedule', schedules.length);
    for (const schedule of schedules) {
      const fn = api.functions.get(schedule.name)!;
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: `rate(${schedule.rateMinutes} minutes)`,
        State: 'ENABLED',
        Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack, fn), 'Arn'] } }),
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Handler: `index.${splitHandler(schedule.handler).exportName}`,
      });
    }
  });

  it('feeds each queue worker from its queue with partial batch failures, in a function of its own', () => {
    const { stack, api, queues: queueConstruct, template } = shared;
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', queueWorkers.length);
    for (const worker of queueWorkers) {
      const fn = api.functions.get(worker.name)!;
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
      // Lambda refuses a mapping whose queue hides messages for less time than the function may run.
      expect(queues[worker.queue].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(worker.timeoutSeconds);
    }
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

  it('outputs the API URL', () => {
    const apiId = logicalId(shared.stack, shared.api.httpApi);
    shared.template.hasOutput('*', { Value: { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] } });
  });

  it('serves every streaming route of the shared table through a RESPONSE_STREAM Function URL', () => {
    const streamingRoutes = routes.filter((route) => route.streaming);
    expect(streamingRoutes.map((route) => route.path)).toEqual([
      '/events/workflows/{workflow_id}',
      '/events/ingestion/{job_id}',
    ]);
    shared.template.resourceCountIs('AWS::Lambda::Url', streamingRoutes.length);
    shared.template.allResourcesProperties('AWS::Lambda::Url', { InvokeMode: 'RESPONSE_STREAM' });
    for (const route of streamingRoutes) {
      const fn = shared.api.functions.get(`${route.method} ${route.path}`)!;
      shared.template.hasResourceProperties('AWS::Lambda::Url', {
        TargetFunctionArn: { 'Fn::GetAtt': [logicalId(shared.stack, fn), 'Arn'] },
        InvokeMode: 'RESPONSE_STREAM',
      });
    }
  });

  describe('given a streaming route', () => {
    const streaming: RouteDef = {
      method: 'GET',
      path: '/tenants/{tenant_full_id}/events',
      handler: 'http/health.health',
      streaming: true,
      timeoutSeconds: 900,
    };
    let synthesized: Synthesized;

    beforeAll(() => {
      synthesized = synthesize({
        routes: [{ method: 'GET', path: '/health', handler: 'http/health.health' }, streaming],
        schedules: [
          {
            name: 'every-minute',
            handler: 'workers/maintenance.recoverTenants',
            rateMinutes: 1,
            atStartup: false,
          },
        ],
      });
    });

    it('serves it through a RESPONSE_STREAM Function URL and outputs its URL', () => {
      const { stack, api, template } = synthesized;
      const fn = api.functions.get(`GET ${streaming.path}`)!;
      template.resourceCountIs('AWS::Lambda::Url', 1);
      template.hasResourceProperties('AWS::Lambda::Url', {
        TargetFunctionArn: { 'Fn::GetAtt': [logicalId(stack, fn), 'Arn'] },
        InvokeMode: 'RESPONSE_STREAM',
        AuthType: 'NONE',
        Cors: Match.objectLike({ AllowMethods: ['GET'] }),
      });
      template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.health', Timeout: 900 });
      const urls = template.findResources('AWS::Lambda::Url');
      template.hasOutput('*', { Value: { 'Fn::GetAtt': [Object.keys(urls)[0], 'FunctionUrl'] } });
    });

    it('gives it no API route', () => {
      const keys = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Route')).map(
        (route) => route.Properties.RouteKey,
      );
      expect(keys.sort()).toEqual(['$default', 'GET /health']);
    });

    it('writes a one-minute schedule as rate(1 minute)', () => {
      synthesized.template.resourceCountIs('AWS::Scheduler::Schedule', 1);
      synthesized.template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
      });
    });
  });
});
