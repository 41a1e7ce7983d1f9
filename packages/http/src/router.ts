/**
 * One Lambda handler for the API routes of a handler module: API Gateway sends every route of the module to
 * the same function (one function, integration and permission a module instead of a route, which keeps the
 * stack under CloudFormation's 500 resources), and the event's `routeKey` says which route's handler answers.
 */
import { log } from '@tessera/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { errorResponse, type HttpResponse, notFoundResponse } from './responses';

/** A route's Lambda handler, as `httpRoute` builds it. */
export type RouteHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<HttpResponse> | HttpResponse;

export type ModuleRouter = (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse>;

/** An API Gateway route key: `METHOD /path`, the path with `{name}` and `{name+}` parameters. */
const ROUTE_KEY = /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) \/\S*$/;

/**
 * The handler of `handlers`, by route key (`'GET /wiki/topic/{slug}': getTopic`): it calls the handler of the
 * event's `routeKey` with the same event and context. A route key it has no handler for answers 404 in the
 * spec's error shape, and a handler that throws answers as every route's errors do: it never throws itself.
 * Throws at once (at the module's load) on a key that is not a route key or a handler that is not a function.
 */
export function moduleRouter(handlers: Readonly<Record<string, RouteHandler>>): ModuleRouter {
  const table = new Map<string, RouteHandler>();
  for (const [key, handler] of Object.entries(handlers)) {
    if (!ROUTE_KEY.test(key)) throw new TypeError(`moduleRouter: '${key}' is not a route key (METHOD /path)`);
    if (typeof handler !== 'function') throw new TypeError(`moduleRouter: ${key} has no handler function`);
    table.set(key, handler);
  }
  return async (event, context) => {
    const routeKey = typeof event?.routeKey === 'string' ? event.routeKey : undefined;
    const handler = routeKey === undefined ? undefined : table.get(routeKey);
    if (!handler) {
      // API Gateway sends a function only the routes it was deployed with: a miss is a deploy out of step.
      log.warn('no handler for the route in this function', { routeKey, routes: [...table.keys()] });
      return notFoundResponse();
    }
    try {
      return await handler(event, context);
    } catch (error) {
      return errorResponse(error, { route: routeKey, requestId: context?.awsRequestId });
    }
  };
}
