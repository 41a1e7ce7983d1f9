import {
  fallbackHandler,
  moduleMemoryMb,
  type RouteDef,
  routes,
  splitHandler,
} from '@tessera/functions/routes';
import { API_URL_VARIABLE, streamingUrlVariable } from '@tessera/platform/resources';
import {
  API_TIMEOUT_SECONDS,
  Api,
  type ApiProps,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
  ROUTER_EXPORT,
} from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

interface Synthesized {
  stack: Stack;
  api: Api;
  template: Template;
}

const apps = testApps();
afterAll(apps.remove);

function synthesize(props: Pick<ApiProps, 'routes'> = {}): Synthesized {
  const { stack, functions } = compose(apps.create(), 'ApiTest');
  const api = new Api(stack, 'Api', { functions, ...props });
  return { stack, api, template: Template.fromStack(stack) };
}

/** Streaming routes are served by Function URLs, not API routes. */
const apiRoutes = routes.filter((route) => !route.streaming);
/** The API routes by handler module. */
const apiModules = new Map<string, RouteDef[]>();
for (const route of apiRoutes) {
  const { module } = splitHandler(route.handler);
  apiModules.set(module, [...(apiModules.get(module) ?? []), route]);
}

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

  it("integrates the routes of each handler module with one function running the module's router", () => {
    const byKey = functionsByRouteKey(shared.template);
    for (const [module, moduleRoutes] of apiModules) {
      const ids = new Set(moduleRoutes.map((route) => byKey.get(`${route.method} ${route.path}`)?.id));
      expect(ids.size, module).toBe(1);
      const target = byKey.get(`${moduleRoutes[0]!.method} ${moduleRoutes[0]!.path}`);
      // As long as the module's longest route may take, with the module's memory.
      expect(target?.properties, module).toMatchObject({
        Handler: `index.${ROUTER_EXPORT}`,
        Runtime: 'nodejs22.x',
        Architectures: ['x86_64'],
        Timeout: Math.max(...moduleRoutes.map((route) => route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS)),
        MemorySize: moduleMemoryMb[module] ?? DEFAULT_MEMORY_MB,
      });
      expect(logicalId(shared.stack, shared.api.moduleFunctions.get(module)!)).toBe(target!.id);
    }
    const ids = new Set([...byKey.values()].map((target) => target.id));
    expect(ids.size).toBe(apiModules.size + 1);
    expect(ROUTER_EXPORT).toBe('route');
    // One integration a module (and the fallback's), each route of the module targeting it.
    shared.template.resourceCountIs('AWS::ApiGatewayV2::Integration', apiModules.size + 1);
    shared.template.allResourcesProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('creates functions per handler module, not per route: modules, streams, long runs and the fallback', () => {
    const ours = Object.values(shared.template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties.Runtime === 'nodejs22.x',
    );
    const streams = routes.filter((route) => route.streaming).length;
    const longRuns = routes.filter((route) => route.longRun).length;
    expect(ours).toHaveLength(apiModules.size + streams + longRuns + 1);
    expect(apiModules.size).toBeLessThan(apiRoutes.length / 2);
  });

  it('lets API Gateway invoke each module function from any route with one permission, and no more', () => {
    const apiId = logicalId(shared.stack, shared.api.httpApi);
    const permissions = Object.values(shared.template.findResources('AWS::Lambda::Permission')).filter(
      (permission) => permission.Properties.Principal === 'apigateway.amazonaws.com',
    );
    expect(permissions).toHaveLength(apiModules.size + 1);
    const targets = permissions.map((permission) => permission.Properties.FunctionName['Fn::GetAtt'][0]);
    expect(new Set(targets).size).toBe(permissions.length);
    for (const permission of permissions) {
      expect(permission.Properties.Action).toBe('lambda:InvokeFunction');
      // Any stage, method and route of this API (the fallback's: any stage and method, no route).
      const parts = permission.Properties.SourceArn['Fn::Join'][1] as unknown[];
      expect(parts.at(-2)).toEqual({ Ref: apiId });
      expect(parts.at(-1)).toMatch(/^\/\*\/\*(\/\*)?$/);
    }
  });

  it('lets no API route run longer than API Gateway waits for it (29 s, under its 30 s limit)', () => {
    const byKey = functionsByRouteKey(shared.template);
    const over = [...byKey]
      .filter(([, target]) => (target.properties.Timeout as number) > API_TIMEOUT_SECONDS)
      .map(([key, target]) => `${key}: ${target.properties.Timeout} s`);
    expect(over).toEqual([]);
    expect(API_TIMEOUT_SECONDS).toBe(29);
  });

  it("refuses a route handler named as the module's router, and a route twice", () => {
    const { functions, stack } = compose(apps.create(), 'RouterNameTest');
    expect(
      () =>
        new Api(stack, 'Api', {
          functions,
          routes: [{ method: 'GET', path: '/health', handler: `http/health.${ROUTER_EXPORT}` }],
        }),
    ).toThrow(/GET \/health: its handler may not be named 'route', the name of its module's router/);
    expect(
      () =>
        new Api(stack, 'Api2', {
          functions,
          routes: [
            { method: 'GET', path: '/health', handler: 'http/health.health' },
            { method: 'GET', path: '/health', handler: 'http/openapi.openapi' },
          ],
        }),
    ).toThrow(/GET \/health: twice in the route table/);
  });

  it('refuses an API route whose timeout API Gateway would cut short', () => {
    const { functions, stack } = compose(apps.create(), 'LongRouteTest');
    expect(
      () =>
        new Api(stack, 'Api', {
          functions,
          routes: [{ method: 'POST', path: '/health', handler: 'http/health.health', timeoutSeconds: 30 }],
        }),
    ).toThrow(/POST \/health: timeout 30 s, but API Gateway answers 503 after 30 s; at most 29/);
  });

  it('gives every other function the function URL of each stream, so the URLs they hand out answer', () => {
    const { stack, api, template } = shared;
    const resources = template.toJSON().Resources;
    const streamingRoutes = routes.filter((route) => route.streaming);
    for (const route of streamingRoutes) {
      const stream = api.functions.get(`${route.method} ${route.path}`)!;
      const [urlId] = Object.entries(template.findResources('AWS::Lambda::Url')).find(
        ([, url]) => url.Properties.TargetFunctionArn['Fn::GetAtt'][0] === logicalId(stack, stream),
      )!;
      const variable = streamingUrlVariable(route.path);
      for (const [key, fn] of api.functions) {
        const variables = resources[logicalId(stack, fn)].Properties.Environment.Variables;
        const isStream = streamingRoutes.some((candidate) => `${candidate.method} ${candidate.path}` === key);
        if (isStream) expect(variables[variable], key).toBeUndefined();
        else expect(variables[variable], key).toEqual({ 'Fn::GetAtt': [urlId, 'FunctionUrl'] });
      }
    }
    expect(streamingUrlVariable('/events/ingestion/{job_id}')).toBe('TESSERA_STREAM_URL_EVENTS_INGESTION');
  });

  it('sends every request no route matches to the fallback handler', () => {
    const fallback = functionsByRouteKey(shared.template).get('$default');
    expect(fallback?.properties.Handler).toBe(`index.${splitHandler(fallbackHandler).exportName}`);
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
    const healthId = logicalId(stack, api.moduleFunctions.get('http/health')!);
    expect(template.toJSON().Resources[healthId].Properties.Layers).toEqual([layerRef]);
    const fallbackId = logicalId(stack, api.functions.get('$default')!);
    expect(template.toJSON().Resources[fallbackId].Properties.Layers).toBeUndefined();
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
      '/v1/chat/completions',
      '/ag-ui/{agent}',
    ]);
    const longRuns = routes.filter((route) => route.longRun);
    shared.template.resourceCountIs('AWS::Lambda::Url', streamingRoutes.length + longRuns.length);
    const modes = Object.values(shared.template.findResources('AWS::Lambda::Url')).map(
      (url) => url.Properties.InvokeMode,
    );
    expect(modes.filter((mode) => mode === 'RESPONSE_STREAM')).toHaveLength(streamingRoutes.length);
    for (const route of streamingRoutes) {
      const fn = shared.api.functions.get(`${route.method} ${route.path}`)!;
      shared.template.hasResourceProperties('AWS::Lambda::Url', {
        TargetFunctionArn: { 'Fn::GetAtt': [logicalId(shared.stack, fn), 'Arn'] },
        InvokeMode: 'RESPONSE_STREAM',
      });
    }
  });

  it('serves long agent runs through a buffered Function URL of a 900 s function that every other function knows', () => {
    const { stack, api, template } = shared;
    expect(routes.filter((route) => route.longRun).map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /agents/{agent_name}/process',
    ]);
    const longRun = api.longRuns.get('POST /agents/{agent_name}/process')!;
    const id = logicalId(stack, longRun.fn);
    const resources = template.toJSON().Resources;
    expect(resources[id].Properties).toMatchObject({ Handler: 'index.processLongRun', Timeout: 900 });
    const [urlId] = Object.entries(template.findResources('AWS::Lambda::Url')).find(
      ([, url]) => url.Properties.TargetFunctionArn['Fn::GetAtt'][0] === id,
    )!;
    expect(resources[urlId].Properties).toMatchObject({ InvokeMode: 'BUFFERED', AuthType: 'NONE' });
    // The API's own process function keeps API Gateway's limit; it and every other function get the URL.
    const apiProcess = api.functions.get('POST /agents/{agent_name}/process')!;
    expect(resources[logicalId(stack, apiProcess)].Properties.Timeout).toBe(29);
    for (const [key, fn] of api.functions) {
      const variables = resources[logicalId(stack, fn)].Properties.Environment.Variables;
      if (routes.some((route) => route.streaming && `${route.method} ${route.path}` === key)) continue;
      expect(variables.TESSERA_AGENT_LONG_RUN_URL, key).toEqual({ 'Fn::GetAtt': [urlId, 'FunctionUrl'] });
    }
    // Not the long-run function itself: it would depend on its own URL.
    expect(resources[id].Properties.Environment.Variables.TESSERA_AGENT_LONG_RUN_URL).toBeUndefined();
    template.hasOutput('*', { Value: { 'Fn::GetAtt': [urlId, 'FunctionUrl'] } });
  });

  it('gives every function that runs agents the HTTP API URL, the streams and the long-run function included', () => {
    const { stack, api, template } = shared;
    const resources = template.toJSON().Resources;
    const endpoint = { 'Fn::GetAtt': [logicalId(stack, api.httpApi), 'ApiEndpoint'] };
    const variablesOf = (id: string) => resources[id].Properties.Environment.Variables;
    // Chat and AG-UI are served by Function URLs: their sub-agent calls must not go to their own host.
    for (const key of [
      'POST /v1/chat/completions',
      'POST /ag-ui/{agent}',
      'POST /agents/{agent_name}/process',
    ]) {
      expect(variablesOf(logicalId(stack, api.functions.get(key)!))[API_URL_VARIABLE], key).toEqual(endpoint);
    }
    const longRun = api.longRuns.get('POST /agents/{agent_name}/process')!;
    expect(variablesOf(logicalId(stack, longRun.fn))[API_URL_VARIABLE]).toEqual(endpoint);
    // Only bundles that read it: the health route runs no agent.
    expect(
      variablesOf(logicalId(stack, api.functions.get('GET /health')!))[API_URL_VARIABLE],
    ).toBeUndefined();
  });

  it('forms no dependency cycle between the API, its functions and their URLs', () => {
    // The assertions library refuses a template whose resources depend on each other in a cycle (undeployable).
    expect(() => Template.fromStack(shared.stack)).not.toThrow();
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

    it('lets a POST stream take its JSON body and headers from any origin', () => {
      const post: RouteDef = { ...streaming, method: 'POST', path: '/v1/chat/completions' };
      const { template } = synthesize({ routes: [post] });
      template.hasResourceProperties('AWS::Lambda::Url', {
        InvokeMode: 'RESPONSE_STREAM',
        Cors: Match.objectLike({
          AllowMethods: ['POST'],
          AllowHeaders: Match.arrayWith(['content-type', 'authorization', 'x-tessera-tenant']),
        }),
      });
    });

    it('gives it no API route', () => {
      const keys = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Route')).map(
        (route) => route.Properties.RouteKey,
      );
      expect(keys.sort()).toEqual(['$default', 'GET /health']);
    });
  });
});
