/**
 * The HTTP API from the route table (`@tessera/functions/routes`): one Lambda function per route, the
 * `$default` route for every other request, and Function URLs for response-streaming routes.
 */
import {
  type RouteDef,
  fallbackHandler as sharedFallbackHandler,
  routes as sharedRoutes,
} from '@tessera/functions/routes';
import { API_URL_VARIABLE, LONG_RUN_URL_VARIABLE, streamingUrlVariable } from '@tessera/platform/resources';
import { CfnOutput } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { pascalCase } from './definitions';
import { API_TIMEOUT_SECONDS, type Functions } from './functions';

export interface ApiProps {
  functions: Functions;
  /** Defaults to the shared route table. */
  routes?: readonly RouteDef[];
  /** Serves every unmatched request; defaults to the shared fallback handler. */
  fallbackHandler?: string;
}

export class Api extends Construct {
  readonly httpApi: apigateway.HttpApi;
  /** Every function by what it serves: `GET /health` or `$default`. */
  readonly functions = new Map<string, lambda.Function>();
  /** The Function URL of every streaming route, by `METHOD /path`. */
  readonly streamingUrls = new Map<string, string>();
  /** The long-run function of a route that has one, by `METHOD /path`, and its Function URL. */
  readonly longRuns = new Map<string, { fn: lambda.Function; url: string }>();

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const routes = props.routes ?? sharedRoutes;
    const fallbackHandler = props.fallbackHandler ?? sharedFallbackHandler;
    props.functions.bundle([
      fallbackHandler,
      ...routes.flatMap((route) => [route.handler, ...(route.longRun ? [route.longRun.handler] : [])]),
    ]);

    const fallback = props.functions.create(this, {
      name: 'Fallback',
      handler: fallbackHandler,
      description: 'Requests no route matches ($default)',
    });
    this.functions.set('$default', fallback);
    this.httpApi = new apigateway.HttpApi(this, 'HttpApi', {
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
    });

    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      if (!route.streaming && (route.timeoutSeconds ?? 0) > API_TIMEOUT_SECONDS) {
        throw new Error(
          `${key}: timeout ${route.timeoutSeconds} s, but API Gateway answers 503 after 30 s; at most ${API_TIMEOUT_SECONDS}`,
        );
      }
      const name = pascalCase(key);
      const fn = props.functions.create(this, {
        name,
        handler: route.handler,
        description: key,
        timeoutSeconds: route.timeoutSeconds,
        memoryMb: route.memoryMb,
        streaming: route.streaming,
      });
      this.functions.set(key, fn);
      if (route.streaming) {
        this.exposeStreaming(name, route, fn, props.functions);
      } else {
        this.httpApi.addRoutes({
          path: route.path,
          methods: [apigateway.HttpMethod[route.method]],
          integration: new HttpLambdaIntegration(`${name}Integration`, fn),
        });
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
      memoryMb: route.memoryMb,
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
