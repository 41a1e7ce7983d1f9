/**
 * The HTTP API from the route table (`@tessera/functions/routes`): one Lambda function, integration and
 * invoke permission per handler module, serving all the module's API routes (its bundle's router picks the
 * handler by route key), the `$default` route for every other request, and Function URLs for
 * response-streaming routes and long runs, each with a function of its own. A function per route instead
 * would cost three resources a route, and the stack would outgrow CloudFormation's 500.
 */
import {
  moduleMemoryMb,
  type RouteDef,
  fallbackHandler as sharedFallbackHandler,
  routes as sharedRoutes,
  splitHandler,
} from '@tessera/functions/routes';
import { API_URL_VARIABLE, LONG_RUN_URL_VARIABLE, streamingUrlVariable } from '@tessera/platform/resources';
import { CfnOutput } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { type ModuleRoutes, ROUTER_EXPORT } from './bundle';
import { pascalCase } from './definitions';
import { API_TIMEOUT_SECONDS, DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_SECONDS, type Functions } from './functions';

export interface ApiProps {
  functions: Functions;
  /** Defaults to the shared route table. */
  routes?: readonly RouteDef[];
  /** Serves every unmatched request; defaults to the shared fallback handler. */
  fallbackHandler?: string;
}

export class Api extends Construct {
  readonly httpApi: apigateway.HttpApi;
  /**
   * The function serving each route, by route key (`GET /health`) or `$default`: the function of the route's
   * handler module, or the stream's own.
   */
  readonly functions = new Map<string, lambda.Function>();
  /** The function serving the API routes of each handler module, by module (`http/wiki`). */
  readonly moduleFunctions = new Map<string, lambda.Function>();
  /** The Function URL of every streaming route, by `METHOD /path`. */
  readonly streamingUrls = new Map<string, string>();
  /** The long-run function of a route that has one, by `METHOD /path`, and its Function URL. */
  readonly longRuns = new Map<string, { fn: lambda.Function; url: string }>();

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const routes = props.routes ?? sharedRoutes;
    const fallbackHandler = props.fallbackHandler ?? sharedFallbackHandler;
    const byModule = apiRoutesByModule(routes);
    props.functions.bundle(
      [
        fallbackHandler,
        ...routes.flatMap((route) => [route.handler, ...(route.longRun ? [route.longRun.handler] : [])]),
      ],
      moduleRouters(routes),
    );

    const fallback = props.functions.create(this, {
      name: 'Fallback',
      handler: fallbackHandler,
      description: 'Requests no route matches ($default)',
    });
    this.functions.set('$default', fallback);
    this.httpApi = new apigateway.HttpApi(this, 'HttpApi', {
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
    });

    for (const [module, moduleRoutes] of byModule) {
      const name = `${pascalCase(module)}Routes`;
      const fn = props.functions.create(this, {
        name,
        handler: `${module}.${ROUTER_EXPORT}`,
        description:
          moduleRoutes.length === 1
            ? `${routeKey(moduleRoutes[0]!)} (functions/${module}.ts)`
            : `The ${moduleRoutes.length} API routes of functions/${module}.ts`,
        timeoutSeconds: Math.max(
          ...moduleRoutes.map((route) => route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
        ),
        memoryMb: moduleMemoryMb[module] ?? DEFAULT_MEMORY_MB,
      });
      this.moduleFunctions.set(module, fn);
      // One integration for all the module's routes, and one permission for API Gateway to invoke the function
      // from any of them (a permission scoped to each route would be one resource a route).
      const integration = new HttpLambdaIntegration(`${name}Integration`, fn, {
        scopePermissionToRoute: false,
      });
      for (const route of moduleRoutes) {
        this.functions.set(routeKey(route), fn);
        this.httpApi.addRoutes({
          path: route.path,
          methods: [apigateway.HttpMethod[route.method]],
          integration,
        });
      }
    }

    for (const route of routes) {
      const key = routeKey(route);
      const name = pascalCase(key);
      if (route.streaming) {
        const fn = props.functions.create(this, {
          name,
          handler: route.handler,
          description: key,
          timeoutSeconds: route.timeoutSeconds,
          memoryMb: route.memoryMb,
          streaming: true,
        });
        this.functions.set(key, fn);
        this.exposeStreaming(name, route, fn, props.functions);
      }
      if (route.longRun) this.exposeLongRun(name, route, props.functions);
    }

    // The agents call sub-agents at the API: a function behind a Function URL sees that URL as its host.
    props.functions.provide(API_URL_VARIABLE, this.httpApi.apiEndpoint);
    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.apiEndpoint, description: 'Tessera HTTP API' });
  }

  /**
   * API Gateway buffers responses, so a streaming route gets a Function URL in RESPONSE_STREAM mode instead
   * of an API route, and every other function learns that URL (`streamingUrlVariable`), so the URLs they
   * hand out (`events_url`) are the ones that answer. Function URL events carry no `pathParameters` or
   * `routeKey`: the streaming handlers read their parameters from the path, the same as on the API.
   */
  private exposeStreaming(name: string, route: RouteDef, fn: lambda.Function, functions: Functions): void {
    const key = `${route.method} ${route.path}`;
    const url = fn.addFunctionUrl({
      // Open, like the API itself until it gets an authorizer.
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
      // A POST stream (chat, AG-UI) sends a JSON body with its tenant, conversation or key headers.
      cors: {
        allowedOrigins: ['*'],
        allowedMethods: [lambda.HttpMethod[route.method]],
        ...(route.method === 'GET'
          ? {}
          : {
              allowedHeaders: ['content-type', 'authorization', 'x-tessera-tenant', 'x-tessera-context'],
            }),
      },
    });
    this.streamingUrls.set(key, url.url);
    functions.shareUrl(streamingUrlVariable(route.path), url.url);
    new CfnOutput(this, `${name}Url`, { value: url.url, description: `Response-streaming ${key}` });
  }

  /**
   * A run that can outlive API Gateway's 30 s (an orchestration, deep research) is served by a second function
   * of the route's long-run timeout behind a buffered Function URL; every other function learns that URL
   * (`LONG_RUN_URL_VARIABLE`), which the agent registry gives those agents as their url. The function gets no
   * shared URLs itself (like a stream's), since it would depend on its own URL.
   */
  private exposeLongRun(name: string, route: RouteDef, functions: Functions): void {
    const key = `${route.method} ${route.path}`;
    const longRun = route.longRun!;
    const fn = functions.create(this, {
      name: `${name}LongRun`,
      handler: longRun.handler,
      description: `${key} (long runs)`,
      timeoutSeconds: longRun.timeoutSeconds,
      memoryMb: moduleMemoryMb[splitHandler(route.handler).module],
      streaming: true,
    });
    const url = fn.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.BUFFERED,
      cors: { allowedOrigins: ['*'], allowedMethods: [lambda.HttpMethod[route.method]] },
    });
    this.longRuns.set(key, { fn, url: url.url });
    functions.shareUrl(LONG_RUN_URL_VARIABLE, url.url);
    new CfnOutput(this, `${name}LongRunUrl`, { value: url.url, description: `Long runs of ${key}` });
  }
}

const routeKey = (route: RouteDef) => `${route.method} ${route.path}`;

/**
 * What the router of each handler module's bundle serves: its API routes (every route but the streaming
 * ones), each route key with the export that answers it. The Api bundles the modules with these; so may
 * whatever measures the bundles the stack ships.
 */
export function moduleRouters(routes: readonly RouteDef[]): Map<string, ModuleRoutes> {
  return new Map(
    [...apiRoutesByModule(routes)].map(([module, moduleRoutes]): [string, ModuleRoutes] => [
      module,
      Object.fromEntries(
        moduleRoutes.map((route) => [routeKey(route), splitHandler(route.handler).exportName]),
      ),
    ]),
  );
}

/**
 * The API routes (every route but the streaming ones) by handler module, in the table's order. Throws on a
 * route API Gateway would cut short, one whose handler is named as the bundles' router, and a repeated key.
 */
function apiRoutesByModule(routes: readonly RouteDef[]): Map<string, RouteDef[]> {
  const byModule = new Map<string, RouteDef[]>();
  const keys = new Set<string>();
  for (const route of routes) {
    const key = routeKey(route);
    if (keys.has(key)) throw new Error(`${key}: twice in the route table`);
    keys.add(key);
    if (route.streaming) continue;
    if ((route.timeoutSeconds ?? 0) > API_TIMEOUT_SECONDS) {
      throw new Error(
        `${key}: timeout ${route.timeoutSeconds} s, but API Gateway answers 503 after 30 s; at most ${API_TIMEOUT_SECONDS}`,
      );
    }
    const { module, exportName } = splitHandler(route.handler);
    if (exportName === ROUTER_EXPORT) {
      throw new Error(
        `${key}: its handler may not be named '${ROUTER_EXPORT}', the name of its module's router`,
      );
    }
    byModule.set(module, [...(byModule.get(module) ?? []), route]);
  }
  return byModule;
}
