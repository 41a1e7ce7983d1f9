import { Config } from '@tessera/api';
import { NotFoundError } from '@tessera/core';
import { telemetry } from '@tessera/telemetry';
import { type OtlpReceiver, startOtlpReceiver } from '@tessera/testing';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalTenant, httpRoute, requestTenant } from '../src/index';

let collector: OtlpReceiver;

beforeAll(async () => {
  collector = await startOtlpReceiver();
  telemetry().useSources({
    tenantRecord: async () => Config.TelemetryConfig.parse({ synchronous_export: true }),
    systemUrl: async () => collector.url,
  });
});

afterAll(async () => {
  await telemetry().shutdown();
  await collector.close();
});

function event(method: string, path: string, body?: unknown, query?: Record<string, string>) {
  return {
    version: '2.0',
    routeKey: `${method} /things/{id}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    queryStringParameters: query,
    pathParameters: { id: path.split('/').pop() },
    requestContext: { http: { method, path } },
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

const context = { awsRequestId: 'r1' } as unknown as Context;

const route = httpRoute(
  {
    body: z.strictObject({ tenant_id: z.string(), org_id: z.string().optional(), n: z.number() }),
    path: z.object({ id: z.string() }),
  },
  async ({ body, path }) => {
    if (path.id === 'missing') throw new NotFoundError('Thing missing not found');
    if (path.id === 'broken') throw new Error('internal detail');
    return { n: body.n };
  },
);

describe('canonicalTenant and requestTenant', () => {
  it('canonicalize a request’s tenant as the tenant routes do, and refuse what is not an id', () => {
    expect(canonicalTenant('acme:prod')).toBe('acme:prod');
    expect(canonicalTenant('solo')).toBe('solo:solo');
    expect(canonicalTenant('prod', 'acme')).toBe('acme:prod');
    for (const bad of ['a:b:c', ':x', 'x:', 'bad-id', '', 7, null]) expect(canonicalTenant(bad)).toBeNull();
    expect(requestTenant({ path: { tenant_full_id: 'a:b' }, query: { tenant_id: 'c:d' } })).toBe('a:b');
    expect(requestTenant({ query: {}, body: { tenant_id: 't', org_id: 'o' } })).toBe('o:t');
    expect(requestTenant({ body: 'text' })).toBeNull();
  });
});

describe('the span of an HTTP request', () => {
  it('carries the tenant, the route and the status of each answer, a 5xx as an error', async () => {
    const answers = [
      await route(event('POST', '/things/ok', { tenant_id: 'acme:prod', n: 1 }), context),
      await route(event('POST', '/things/missing', { tenant_id: 'prod', org_id: 'acme', n: 1 }), context),
      await route(event('POST', '/things/broken', { tenant_id: 'acme:prod', n: 1 }), context),
      await route(
        event('POST', '/things/bad', { tenant_id: 'acme:prod', n: 'x' }, { tenant_id: 'q:q' }),
        context,
      ),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 404, 500, 422]);
    // Synchronous export: every span is at the collector when its request answered.
    const spans = collector.spans.map((span) => ({
      tenant: span.attributes['tessera.tenant_id'],
      status: span.attributes['http.response.status_code'],
      route: span.attributes['http.route'],
      error: span.status.code === 2,
      project: span.resource['openinference.project.name'],
    }));
    expect(spans).toEqual([
      { tenant: 'acme:prod', status: 200, route: '/things/{id}', error: false, project: 'tessera-acme:prod' },
      { tenant: 'acme:prod', status: 404, route: '/things/{id}', error: false, project: 'tessera-acme:prod' },
      { tenant: 'acme:prod', status: 500, route: '/things/{id}', error: true, project: 'tessera-acme:prod' },
      // Refused before its body was valid: the tenant of its query.
      { tenant: 'q:q', status: 422, route: '/things/{id}', error: false, project: 'tessera-q:q' },
    ]);
    expect(collector.spans[0]!.name).toBe('POST /things/{id}');
    expect(JSON.parse(answers[2]!.body)).toEqual({ detail: 'Internal server error' });
  });
});
