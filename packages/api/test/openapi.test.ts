import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contracts, route } from '../src/index';
import { errorAnswers, openApiDocument, openApiJson } from '../src/openapi';
import { OPENAPI_FILE } from '../src/write-openapi';

type Operation = {
  operationId: string;
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content: Record<string, { schema: unknown }> }>;
};

const document = openApiDocument() as unknown as {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
};
const operationOf = (method: string, path: string) => document.paths[path]?.[method.toLowerCase()];

describe('the OpenAPI document', () => {
  it('is committed as docs/openapi.json exactly as generated (run `npm run openapi` after changing a contract)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiJson());
  });

  it('is OpenAPI 3.1 with one operation per contract, named by its id', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const contract of contracts) {
      expect(operationOf(contract.method, contract.route)?.operationId, contract.route).toBe(contract.id);
    }
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(contracts.length);
  });

  it('gives each route its success answers and every error answer, with the stack-level ones', () => {
    for (const contract of contracts) {
      const operation = operationOf(contract.method, contract.route)!;
      const statuses = Object.keys(operation.responses).map(Number);
      const expected = [...Object.keys(contract.responses), ...Object.keys(errorAnswers(contract))].map(
        Number,
      );
      expect(statuses.sort(), `${contract.method} ${contract.route}`).toEqual([...new Set(expected)].sort());
      expect(statuses).toContain(500);
      if (contract.path || contract.query || contract.body || contract.form) expect(statuses).toContain(422);
      if (contract.body) expect(statuses).toEqual(expect.arrayContaining([413, 415]));
    }
  });

  it('describes each error in one of the three error shapes, a 503 service-state body, a 501 agent not available, or a named 500 failure', () => {
    const shapes = new Set(['PlainError', 'BusinessRuleError', 'ValidationError']);
    const refs = (schema: unknown): string[] => {
      const s = schema as { $ref?: string; anyOf?: unknown[]; allOf?: unknown[] };
      if (s.$ref) return [s.$ref.replace('#/components/schemas/', '')];
      // An intersection (chat's error bodies with OpenAI's `error` beside them) is named by its shape.
      return (s.anyOf ?? s.allOf ?? []).flatMap(refs);
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, answer] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          const names = refs(answer.content['application/json']!.schema);
          expect(names.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          for (const name of names) {
            if (Number(status) === 503) expect(name).toMatch(/Unavailable|Incomplete$/);
            // An agent of the roster this build does not implement names itself.
            else if (Number(status) === 501) expect(name).toBe('AgentNotAvailable');
            // Document 2's templates route answers `{detail: {error: 'profile_templates_failed', message}}`.
            else if (Number(status) === 500 && name !== 'PlainError') expect(name).toMatch(/Failed$/);
            // Registration's refused token is clarifications' own body, `{status: 'invalid_token'}`.
            else if (path === '/admin/messaging/register' && Number(status) === 404)
              expect(name).toBe('InvalidToken');
            else expect(shapes, `${method} ${path} ${status}: ${name}`).toContain(name);
          }
        }
      }
    }
  });

  it('lists path and query parameters with the ones a request must give marked required', () => {
    const neighbors = operationOf('GET', '/graph/neighbors')!;
    expect(neighbors.parameters).toEqual([
      expect.objectContaining({ in: 'query', name: 'tenant_id', required: true }),
      expect.objectContaining({ in: 'query', name: 'node', required: true }),
      expect.objectContaining({
        in: 'query',
        name: 'depth',
        schema: expect.objectContaining({ type: 'integer' }),
      }),
    ]);
    const tenant = operationOf('DELETE', '/admin/tenants/{tenant_full_id}')!;
    expect(tenant.parameters).toEqual([
      expect.objectContaining({ in: 'path', name: 'tenant_full_id', required: true }),
    ]);
  });

  it('shows server-sent event routes as text/event-stream and uploads as multipart/form-data', () => {
    expect(
      Object.keys(operationOf('GET', '/events/workflows/{workflow_id}')!.responses[200]!.content),
    ).toEqual(['text/event-stream']);
    expect(Object.keys(operationOf('POST', '/ingestion/upload')!.requestBody!.content)).toEqual([
      'multipart/form-data',
    ]);
  });

  it('names the 503 body of the task event store as document 3 gives it', () => {
    const cancel = contracts.find((c) => c.id === 'cancelWorkflow')!;
    const body = {
      detail: {
        error: 'task_events_unavailable',
        message: 'The task event store did not answer; retry.',
        failure: 'TaskEventsUnavailable',
        task_id: 'wf_1',
      },
    };
    expect(cancel.errors[503]!.schema.safeParse(body).success).toBe(true);
    expect(cancel.errors[503]!.schema.safeParse({ detail: { error: 'other' } }).success).toBe(false);
  });

  it('builds the document of any contract list', () => {
    const ping = route({
      id: 'ping',
      group: 'test',
      method: 'POST',
      route: '/ping',
      summary: 'ping',
      body: z.object({ n: z.number() }),
      responses: { 200: { description: 'pong', schema: z.object({ n: z.number() }) } },
      errors: {},
    });
    const built = openApiDocument([ping]) as unknown as { paths: Record<string, Record<string, Operation>> };
    // 400 and 431: what the HTTP layer refuses (framing, percent-encoding, header size) on any route.
    expect(Object.keys(built.paths['/ping']!.post!.responses).sort()).toEqual([
      '200',
      '400',
      '413',
      '415',
      '422',
      '431',
      '500',
    ]);
  });
});
