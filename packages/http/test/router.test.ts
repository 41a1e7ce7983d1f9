import { NotFoundError } from '@tessera/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpRoute, moduleRouter, type RouteHandler } from '../src/index';

function event(routeKey: string, rawPath: string, pathParameters?: Record<string, string>) {
  const method = routeKey.split(' ')[0]!;
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: '',
    headers: {},
    pathParameters,
    requestContext: {
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r1',
      routeKey,
      stage: '$default',
    },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

const context = { awsRequestId: 'r1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

const things = new Map([['a', { id: 'a', name: 'first' }]]);
const listThings = httpRoute({}, () => ({ things: [...things.values()] }));
const getThing = httpRoute({ path: z.object({ id: z.string() }) }, ({ path }) => {
  const thing = things.get(path.id);
  if (!thing) throw new NotFoundError(`No thing ${path.id}`);
  return thing;
});

const route = moduleRouter({ 'GET /things': listThings, 'GET /things/{id}': getThing });

const parsed = async (answer: Promise<{ statusCode: number; body: string }>) => {
  const { statusCode, body } = await answer;
  return { statusCode, body: JSON.parse(body) };
};

describe('moduleRouter', () => {
  it('calls the handler of the event’s route key with the event and context', async () => {
    expect(await parsed(route(event('GET /things', '/things'), context))).toEqual({
      statusCode: 200,
      body: { things: [{ id: 'a', name: 'first' }] },
    });
    expect(await parsed(route(event('GET /things/{id}', '/things/a', { id: 'a' }), context))).toEqual({
      statusCode: 200,
      body: { id: 'a', name: 'first' },
    });
    // The route's own errors are its own: the router adds nothing.
    expect(await parsed(route(event('GET /things/{id}', '/things/b', { id: 'b' }), context))).toEqual({
      statusCode: 404,
      body: { detail: 'No thing b' },
    });
    const seen: unknown[] = [];
    const spy: RouteHandler = (received, receivedContext) => {
      seen.push(received, receivedContext);
      return { statusCode: 204, body: '' };
    };
    const sent = event('DELETE /things/{id}', '/things/a', { id: 'a' });
    await moduleRouter({ 'DELETE /things/{id}': spy })(sent, context);
    expect(seen[0]).toBe(sent);
    expect(seen[1]).toBe(context);
  });

  it('answers 404 in the error shape for a route key it has no handler for, and never throws', async () => {
    for (const routeKey of [
      'POST /things',
      'GET /things/{id}/parts',
      '$default',
      'constructor',
      '__proto__',
    ]) {
      expect(await parsed(route(event(routeKey, '/things'), context)), routeKey).toEqual({
        statusCode: 404,
        body: { detail: 'Not Found' },
      });
    }
    for (const odd of [{}, null, undefined, { routeKey: 42 }]) {
      expect((await route(odd as never, context)).statusCode).toBe(404);
    }
  });

  it('answers a handler’s thrown error as every route does: 500 without internals', async () => {
    const failing = moduleRouter({
      'GET /boom': () => {
        throw new Error('secret internals');
      },
    });
    expect(await parsed(failing(event('GET /boom', '/boom'), context))).toEqual({
      statusCode: 500,
      body: { detail: 'Internal server error' },
    });
  });

  it('refuses a key that is not a route key and a handler that is not a function, when built', () => {
    expect(() => moduleRouter({ '/things': listThings })).toThrow(/'\/things' is not a route key/);
    expect(() => moduleRouter({ 'GET /things': undefined as never })).toThrow(/GET \/things has no handler/);
  });
});
