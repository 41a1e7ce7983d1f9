import { fallbackHandler, queueWorkers, routes, schedules, splitHandler } from '@tessera/functions/routes';
import {
  API_URL_VARIABLE,
  buckets,
  LONG_RUN_URL_VARIABLE,
  queues,
  streamingUrlVariable,
  tables,
} from '@tessera/platform/resources';
import {
  Api,
  DEFAULT_TIMEOUT_SECONDS,
  type Functions,
  LAMBDA_CONFIG_DIR,
  MODULE_GRANTS,
  type QueueKey,
  type Queues,
  Schedules,
  type Storage,
  type StoreGrants,
  Workers,
} from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

/** The IAM statements of the policies attached to a function's role. */
/** The statements of a function's role: its policies, and the managed policies CDK spills a long one into. */
function statementsOf(template: Template, stack: Stack, fn: lambda.Function) {
  const role = logicalId(stack, fn.role!);
  // A role whose inline policy outgrows IAM's size limit gets the rest as managed overflow policies.
  return [
    ...Object.values(template.findResources('AWS::IAM::Policy')),
    ...Object.values(template.findResources('AWS::IAM::ManagedPolicy')),
  ]
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${role}"`))
    .flatMap(
      (policy) =>
        policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );
}

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
  /** Every function of the stack with the handler it runs and whether it streams. */
  let all: { fn: lambda.Function; handler: string; streaming: boolean }[];

  beforeAll(() => {
    const composed = compose(apps.create(), 'FunctionsTest');
    const { stack, storage, queues: queueConstruct, functions } = composed;
    const api = new Api(stack, 'Api', { functions });
    const workers = new Workers(stack, 'Workers', { functions, storage, queues: queueConstruct });
    const schedules_ = new Schedules(stack, 'Schedules', { functions });
    shared = { ...composed, api, workers, schedules: schedules_, template: Template.fromStack(stack) };
    all = [
      { fn: api.functions.get('$default')!, handler: fallbackHandler, streaming: false },
      ...routes.map((route) => ({
        fn: api.functions.get(`${route.method} ${route.path}`)!,
        handler: route.handler,
        streaming: route.streaming ?? false,
      })),
      // A long-run function gets no shared URLs, as a stream's function (it would depend on its own URL).
      ...routes
        .filter((route) => route.longRun)
        .map((route) => ({
          fn: api.longRuns.get(`${route.method} ${route.path}`)!.fn,
          handler: route.longRun!.handler,
          streaming: true,
        })),
      ...queueWorkers.map((worker) => ({
        fn: workers.functions.get(worker.name)!,
        handler: worker.handler,
        streaming: false,
      })),
      ...schedules.map((schedule) => ({
        fn: schedules_.functions.get(schedule.name)!,
        handler: schedule.handler,
        streaming: false,
      })),
    ];
  });

  it('gives every function the stage, the config dir, the names of the stores its module is granted, the stream URLs and (where it runs agents) the API URL', () => {
    const { stack, storage, queues: queueConstruct, api, template, functions } = shared;
    const apiReaders = new Set(functions.readersOf(API_URL_VARIABLE));
    expect(apiReaders.size).toBeGreaterThan(0);
    const streamUrls: Record<string, unknown> = {};
    for (const route of routes.filter((candidate) => candidate.streaming)) {
      const fn = api.functions.get(`${route.method} ${route.path}`)!;
      const url = Object.entries(template.findResources('AWS::Lambda::Url')).find(
        ([, resource]) => resource.Properties.TargetFunctionArn['Fn::GetAtt'][0] === logicalId(stack, fn),
      )![0];
      streamUrls[streamingUrlVariable(route.path)] = { 'Fn::GetAtt': [url, 'FunctionUrl'] };
    }
    for (const route of routes.filter((candidate) => candidate.longRun)) {
      const fn = api.longRuns.get(`${route.method} ${route.path}`)!.fn;
      const url = Object.entries(template.findResources('AWS::Lambda::Url')).find(
        ([, resource]) => resource.Properties.TargetFunctionArn['Fn::GetAtt'][0] === logicalId(stack, fn),
      )![0];
      streamUrls[LONG_RUN_URL_VARIABLE] = { 'Fn::GetAtt': [url, 'FunctionUrl'] };
    }
    const resources = template.toJSON().Resources;
    // A function per handler module serves its API routes; a stream, a long run, a worker, a schedule and
    // the fallback each have their own.
    const distinct = new Set(all.map(({ fn }) => fn));
    const apiModules = new Set(
      routes.filter((route) => !route.streaming).map((route) => splitHandler(route.handler).module),
    );
    expect(distinct.size).toBe(
      apiModules.size +
        routes.filter((route) => route.streaming).length +
        routes.filter((route) => route.longRun).length +
        1 +
        schedules.length +
        queueWorkers.length,
    );
    // Besides ours, CDK's own handler that applies bucket notifications.
    template.resourceCountIs('AWS::Lambda::Function', distinct.size + 1);
    for (const { fn, handler, streaming } of all) {
      const grants: StoreGrants = MODULE_GRANTS[splitHandler(handler).module]!;
      const variables: Record<string, unknown> = {
        TESSERA_STAGE: 'test',
        TESSERA_CONFIG_DIR: LAMBDA_CONFIG_DIR,
        ...(streaming ? {} : streamUrls),
        ...(apiReaders.has(fn)
          ? { [API_URL_VARIABLE]: { 'Fn::GetAtt': [logicalId(stack, api.httpApi), 'ApiEndpoint'] } }
          : {}),
      };
      if (grants.buckets?.search) {
        variables.TESSERA_SEARCH_URI = {
          'Fn::Join': ['', ['s3://', { Ref: logicalId(stack, storage.buckets.search) }, '/lancedb']],
        };
      }
      for (const key of Object.keys(grants.tables ?? {}) as (keyof typeof tables)[]) {
        variables[tables[key].envVar] = { Ref: logicalId(stack, storage.tables[key]) };
      }
      for (const key of Object.keys(grants.buckets ?? {}) as (keyof typeof buckets)[]) {
        variables[buckets[key].envVar] = { Ref: logicalId(stack, storage.buckets[key]) };
      }
      for (const key of Object.keys(grants.queues ?? {}) as QueueKey[]) {
        const name = (queue: lambda.IFunction | object) => ({
          'Fn::GetAtt': [logicalId(stack, queue as never), 'QueueName'],
        });
        variables[queues[key].envVar] = name(queueConstruct.queues[key]);
        variables[queues[key].deadLetter.envVar] = name(queueConstruct.deadLetterQueues[key]!);
      }
      const id = logicalId(stack, fn);
      expect(resources[id].Properties.Environment.Variables, `${id} (${handler})`).toEqual(variables);
    }
  });

  it("grants each function exactly its module's stores: read-only ones without write actions, none of the others", () => {
    const { stack, storage, queues: queueConstruct, template } = shared;
    for (const { fn, handler } of all) {
      const grants = MODULE_GRANTS[splitHandler(handler).module]!;
      const statements = statementsOf(template, stack, fn);
      const actionsOn = (id: string) =>
        statements
          .filter((statement) => JSON.stringify(statement.Resource).includes(`"${id}"`))
          .flatMap((statement) => statement.Action);
      const writes = (actions: (string | string[])[]) =>
        actions.flat().filter((action) => /Put|Delete|Update|BatchWrite|Abort|SendMessage/.test(action));
      for (const key of Object.keys(tables) as (keyof typeof tables)[]) {
        const actions = actionsOn(logicalId(stack, storage.tables[key]));
        const access = grants.tables?.[key];
        const where = `${handler} on table ${key}`;
        if (!access) expect(actions, where).toEqual([]);
        else {
          expect(actions.flat(), where).toContain('dynamodb:Query');
          expect(writes(actions).length > 0, where).toBe(access === 'readWrite');
        }
      }
      for (const key of Object.keys(buckets) as (keyof typeof buckets)[]) {
        const actions = actionsOn(logicalId(stack, storage.buckets[key]));
        const access = grants.buckets?.[key];
        const where = `${handler} on bucket ${key}`;
        if (!access) expect(actions, where).toEqual([]);
        else {
          expect(actions.flat(), where).toContain('s3:GetObject*');
          expect(writes(actions).length > 0, where).toBe(access === 'readWrite');
        }
      }
      for (const key of Object.keys(queues) as QueueKey[]) {
        const actions = actionsOn(logicalId(stack, queueConstruct.queues[key])).flat();
        const access = grants.queues?.[key];
        const where = `${handler} on queue ${key}`;
        // A worker's own queue is consumed through its event source, which grants the receive.
        const sends = actions.includes('sqs:SendMessage');
        expect(sends, where).toBe(access === 'send');
        if (access === 'describe') expect(actions, where).toContain('sqs:GetQueueUrl');
      }
    }
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
      Timeout: DEFAULT_TIMEOUT_SECONDS,
      MemorySize: 1024,
      Description: 'probe',
      Environment: { Variables: { TESSERA_STAGE: 'test', TESSERA_CONFIG_DIR: LAMBDA_CONFIG_DIR } },
    });
    expect(DEFAULT_TIMEOUT_SECONDS).toBe(29);
    synthesized.resourceCountIs('AWS::IAM::Policy', 1);
  });

  it('refuses a module whose bundle reaches a store it has no grant for, naming the store', () => {
    const health = MODULE_GRANTS['http/health']!;
    const { stack, functions } = compose(apps.create(), 'MissingGrantTest', 'test', {
      'http/health': { ...health, queues: {} },
    });
    expect(() =>
      functions.create(stack, { name: 'Probe', handler: 'http/health.health', description: 'probe' }),
    ).toThrow(/Grants of http\/health .*reached without a grant: queues\.ingestion/);
  });

  it('refuses a grant for a store the module never reaches', () => {
    const { stack, functions } = compose(apps.create(), 'UnusedGrantTest', 'test', {
      'http/fallback': { tables: { ingestionJobs: 'read' } },
    });
    expect(() =>
      functions.create(stack, { name: 'Probe', handler: 'http/fallback.notFound', description: 'probe' }),
    ).toThrow(/granted but never reached: tables\.ingestionJobs/);
  });

  it("runs a module's router only from a bundle given its routes, given once, before the module's functions", () => {
    const { stack, functions } = compose(apps.create(), 'RouterTest');
    expect(() =>
      functions.create(stack, { name: 'Probe', handler: 'http/health.route', description: 'probe' }),
    ).toThrow(/http\/health\.route: the bundle of functions\/http\/health\.ts has no router/);
    functions.create(stack, { name: 'Plain', handler: 'http/health.health', description: 'plain' });
    expect(() =>
      functions.bundle(['http/health.health'], new Map([['http/health', { 'GET /health': 'health' }]])),
    ).toThrow(/The routes of functions\/http\/health\.ts come after functions of it were created/);
    const routed = { 'GET /openapi.json': 'openapi' };
    functions.bundle(['http/openapi.openapi'], new Map([['http/openapi', routed]]));
    functions.bundle(['http/openapi.openapi'], new Map([['http/openapi', { ...routed }]]));
    expect(() =>
      functions.bundle(['http/openapi.openapi'], new Map([['http/openapi', { 'GET /docs': 'openapi' }]])),
    ).toThrow(/The routes of functions\/http\/openapi\.ts were given twice, and differ/);
    const fn = functions.create(stack, {
      name: 'Routed',
      handler: 'http/openapi.route',
      description: 'routed',
    });
    expect(Template.fromStack(stack).toJSON().Resources[logicalId(stack, fn)].Properties.Handler).toBe(
      'index.route',
    );
  });

  it('refuses a module with no grants declared', () => {
    const { stack, functions } = compose(apps.create(), 'NoGrantsTest', 'test', {});
    expect(() =>
      functions.create(stack, { name: 'Probe', handler: 'http/fallback.notFound', description: 'probe' }),
    ).toThrow(/No grants declared for handler module http\/fallback/);
  });
});

describe('the deploy settings of the functions', () => {
  const settings = {
    environment: {
      TESSERA_EMBEDDINGS_URL: 'https://embeddings.example/v1',
      TESSERA_LLM_BASE_URL: 'https://llm.example/v1',
      TESSERA_LLM_MODEL: 'qwen3',
      SEMANTIC_ROUTER_URL: 'https://router.example/v1',
    },
    secrets: {
      TESSERA_LLM_API_KEY: { secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:llm-AbCdEf' },
      TESSERA_EMBEDDINGS_API_KEY: { parameterName: '/tessera/prod/embeddings-key' },
    },
  };
  let template: Template;
  let stack: Stack;
  let ingestionWorker: lambda.Function;
  let fallback: lambda.Function;
  let search: lambda.Function;

  beforeAll(() => {
    const composed = compose(apps.create(), 'SettingsTest', 'test', undefined, settings);
    stack = composed.stack;
    ingestionWorker = composed.functions.create(stack, {
      name: 'Worker',
      handler: 'workers/ingestion.processJobs',
      description: 'worker',
    });
    fallback = composed.functions.create(stack, {
      name: 'Fallback',
      handler: 'http/fallback.notFound',
      description: 'fallback',
    });
    search = composed.functions.create(stack, {
      name: 'Search',
      handler: 'http/search.search',
      description: 'search',
    });
    template = Template.fromStack(stack);
  });

  const variablesOf = (fn: lambda.Function) =>
    template.toJSON().Resources[logicalId(stack, fn)].Properties.Environment.Variables as Record<
      string,
      unknown
    >;

  it('sets endpoints on the functions whose bundles read them, and no key in plain environment', () => {
    const worker = variablesOf(ingestionWorker);
    expect(worker).toMatchObject({
      TESSERA_EMBEDDINGS_URL: 'https://embeddings.example/v1',
      TESSERA_LLM_BASE_URL: 'https://llm.example/v1',
      TESSERA_LLM_MODEL: 'qwen3',
      SEMANTIC_ROUTER_URL: 'https://router.example/v1',
      TESSERA_LLM_API_KEY_SECRET_ARN: settings.secrets.TESSERA_LLM_API_KEY.secretArn,
      TESSERA_EMBEDDINGS_API_KEY_PARAMETER: '/tessera/prod/embeddings-key',
    });
    expect(worker.TESSERA_LLM_API_KEY).toBeUndefined();
    expect(worker.TESSERA_EMBEDDINGS_API_KEY).toBeUndefined();
    // Search encodes queries (embeddings) but extracts nothing with an LLM.
    const searchVariables = variablesOf(search);
    expect(searchVariables.TESSERA_EMBEDDINGS_URL).toBe('https://embeddings.example/v1');
    expect(searchVariables.TESSERA_EMBEDDINGS_API_KEY_PARAMETER).toBe('/tessera/prod/embeddings-key');
    expect(searchVariables.TESSERA_LLM_BASE_URL).toBeUndefined();
    expect(searchVariables.SEMANTIC_ROUTER_URL).toBeUndefined();
    expect(searchVariables.TESSERA_LLM_API_KEY_SECRET_ARN).toBeUndefined();
    const fallbackVariables = Object.keys(variablesOf(fallback));
    expect(fallbackVariables.filter((name) => /EMBEDDINGS|LLM/.test(name))).toEqual([]);
  });

  it('lets a function read just the secret and the parameter its keys are kept in', () => {
    const statements = statementsOf(template, stack, ingestionWorker);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: 'secretsmanager:GetSecretValue',
        Resource: settings.secrets.TESSERA_LLM_API_KEY.secretArn,
      }),
    );
    const parameter = statements.find((statement) => statement.Action === 'ssm:GetParameter');
    expect(JSON.stringify(parameter?.Resource)).toContain(':parameter/tessera/prod/embeddings-key');
    const fallbackActions = statementsOf(template, stack, fallback).flatMap((statement) => statement.Action);
    expect(fallbackActions.filter((action) => /secretsmanager|ssm:/.test(String(action)))).toEqual([]);
  });

  it('refuses a key given as a plain setting', () => {
    expect(() =>
      compose(apps.create(), 'PlainKeyTest', 'test', undefined, {
        environment: { TESSERA_LLM_API_KEY: 'sk-secret' },
      }),
    ).toThrow(/TESSERA_LLM_API_KEY is a key: keep it in Secrets Manager or SSM Parameter Store/);
  });

  it('refuses a setting the functions do not read', () => {
    expect(() =>
      compose(apps.create(), 'UnknownTest', 'test', undefined, { environment: { TESSERA_LLM_MODLE: 'x' } }),
    ).toThrow(/TESSERA_LLM_MODLE is not a setting the functions read/);
  });
});
