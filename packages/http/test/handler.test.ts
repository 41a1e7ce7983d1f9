import { queryBoolean, queryInt } from '@tessera/api';
import { BusinessRuleError, NotFoundError } from '@tessera/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpRoute, MAX_BODY_BYTES, reply } from '../src/index';

function event(overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /things',
    rawPath: '/things',
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    requestContext: {
      accountId: '0',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: 'POST',
        path: '/things',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'test',
      },
      requestId: 'r1',
      routeKey: 'POST /things',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
    ...overrides,
  };
}

const context = { awsRequestId: 'r1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

const create = httpRoute(
  {
    body: z.object({ name: z.string(), count: z.number().int().min(1).max(10).default(1) }),
    query: z.object({ dry_run: queryBoolean(true), top_k: queryInt({ min: 1, max: 100, default: 10 }) }),
  },
  async ({ body, query }) => reply(201, { ...body, ...query }),
);

async function call(e: APIGatewayProxyEventV2) {
  const response = await create(e, context);
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

describe('httpRoute', () => {
  it('validates and answers the handler reply', async () => {
    const result = await call(
      event({
        body: '{"name":"a"}',
        rawQueryString: 'dry_run=false',
        queryStringParameters: { dry_run: 'false' },
      }),
    );
    expect(result).toEqual({ status: 201, body: { name: 'a', count: 1, dry_run: false, top_k: 10 } });
  });

  it('answers 422 with type, loc, msg and input for a missing field', async () => {
    const result = await call(event({ body: '{}' }));
    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: {} },
    ]);
  });

  it('answers 422 for wrong types and out-of-range numbers', async () => {
    const result = await call(event({ body: '{"name":5,"count":11}' }));
    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { type: 'string_type', loc: ['body', 'name'], msg: 'Input should be a valid string', input: 5 },
      {
        type: 'less_than_equal',
        loc: ['body', 'count'],
        msg: 'Input should be less than or equal to 10',
        input: 11,
      },
    ]);
  });

  it('answers 422 for a missing body', async () => {
    const result = await call(event({ body: undefined }));
    expect(result.status).toBe(422);
    expect(result.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body'] });
  });

  it('answers 422 json_invalid for malformed JSON', async () => {
    const result = await call(event({ body: '{"name":' }));
    expect(result.status).toBe(422);
    expect(result.body.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body'] });
    expect(result.body.detail[0].msg).toMatch(/^JSON decode error/);
  });

  it('answers 422 for JSON nested 5,000 deep, in any field, instead of overflowing the stack', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const body of [
      deep,
      `{"name":${deep}}`,
      `{"name":"a","x":${deep.replace(/\[/g, '{"a":').replace(/\]/g, '}').replace('{"a":}', '1')}}`,
    ]) {
      const answer = await call(event({ body }));
      expect(answer.status).toBe(422);
      expect(answer.body.detail).toEqual([
        {
          type: 'json_invalid',
          loc: ['body'],
          msg: 'JSON nested deeper than 32 levels; no request needs that',
          input: {},
        },
      ]);
    }
    // Brackets inside strings are text, not nesting.
    expect((await call(event({ body: JSON.stringify({ name: '['.repeat(5000) }) }))).status).toBe(201);
  });

  it('echoes a bounded copy of what it refuses', async () => {
    const nested = { a: { b: { c: { d: 1 } } } };
    const answer = await call(
      event({ body: JSON.stringify({ name: ['x'.repeat(100_000), ...Array(50).fill(nested)] }) }),
    );
    expect(answer.status).toBe(422);
    const input = answer.body.detail[0].input;
    expect(input[0]).toBe(`${'x'.repeat(200)}…`);
    expect(input).toHaveLength(21);
    expect(input[1]).toEqual({ a: { b: '…' } });
    expect(input.at(-1)).toBe('…');
    const wide = await call(
      event({
        body: JSON.stringify({
          count: 'many',
          name: 5,
          ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i])),
        }),
      }),
    );
    expect(wide.status).toBe(422);
    expect(JSON.stringify(wide.body).length).toBeLessThan(2000);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const result = await call(
      event({ body: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    );
    expect(result.status).toBe(415);
    expect(result.body.detail).toMatch(/Content-Type: application\/json/);
  });

  it('accepts a JSON content type with parameters', async () => {
    const result = await call(
      event({ body: '{"name":"a"}', headers: { 'content-type': 'application/json; charset=utf-8' } }),
    );
    expect(result.status).toBe(201);
  });

  it("answers 413 for a body over Lambda's request limit through API Gateway", async () => {
    const result = await call(event({ body: `"${'x'.repeat(MAX_BODY_BYTES)}"` }));
    expect(result.status).toBe(413);
    expect(result.body.detail).toMatch(/6225920 bytes as the function receives it/);
    expect(MAX_BODY_BYTES).toBe(6 * 1024 * 1024 - 64 * 1024);
  });

  it('counts a base64-encoded body as received, 4/3 of its decoded size', async () => {
    const json = `"${'x'.repeat(Math.floor((MAX_BODY_BYTES / 4) * 3) - 100)}"`;
    const encoded = Buffer.from(json).toString('base64');
    expect(Buffer.byteLength(json)).toBeLessThan(MAX_BODY_BYTES);
    const result = await call(event({ body: encoded, isBase64Encoded: true }));
    expect(result.status).not.toBe(413);
    const over = Buffer.from(`"${'x'.repeat(Math.floor((MAX_BODY_BYTES / 4) * 3) + 100)}"`).toString(
      'base64',
    );
    expect((await call(event({ body: over, isBase64Encoded: true }))).status).toBe(413);
  });

  it('answers 422 for malformed query parameters', async () => {
    const result = await call(
      event({ body: '{"name":"a"}', queryStringParameters: { dry_run: 'maybe', top_k: 'ten' } }),
    );
    expect(result.status).toBe(422);
    expect(result.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['query', 'dry_run'],
      ['query', 'top_k'],
    ]);
  });

  it('answers typed domain errors with their status and detail', async () => {
    const notFound = httpRoute({}, () => {
      throw new NotFoundError('Tenant x not found');
    });
    const rule = httpRoute({}, () => {
      throw new BusinessRuleError('Profile validation failed', ['bad name']);
    });
    const a = await notFound(event(), context);
    const b = await rule(event(), context);
    expect([a.statusCode, JSON.parse(a.body)]).toEqual([404, { detail: 'Tenant x not found' }]);
    expect([b.statusCode, JSON.parse(b.body)]).toEqual([
      400,
      { detail: { message: 'Profile validation failed', errors: ['bad name'] } },
    ]);
  });

  it('answers 500 without internals for an unexpected error', async () => {
    const broken = httpRoute({}, () => {
      throw new Error('secret connection string');
    });
    const result = await broken(event(), context);
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toMatch(/secret/);
    expect(JSON.parse(result.body)).toEqual({ detail: 'Internal server error' });
  });
});
