import { contractOf, contracts } from '@tessera/api';
import { openApiDocument } from '@tessera/api/openapi';
import { describe, expect, it } from 'vitest';
import { routes, splitHandler } from '../routes';

const document = openApiDocument() as unknown as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};

describe('the route table and the API contracts', () => {
  it('has a contract for every route, served by the handler export of its group named by its id', () => {
    for (const entry of routes) {
      const contract = contractOf(entry.method, entry.path);
      expect(contract, `${entry.method} ${entry.path} has no contract in @tessera/api`).toBeDefined();
      const { module, exportName } = splitHandler(entry.handler);
      expect(`${module}.${exportName}`).toBe(`http/${contract!.group}.${contract!.id}`);
      expect(Boolean(entry.streaming), entry.path).toBe(Boolean(contract!.stream || contract!.streamSchema));
    }
  });

  it('has a route for every contract', () => {
    for (const contract of contracts) {
      expect(
        routes.some((entry) => entry.method === contract.method && entry.path === contract.route),
        `${contract.method} ${contract.route} is in no route of functions/routes.ts`,
      ).toBe(true);
    }
  });

  it('puts every route of the table in the OpenAPI document with its error answers', () => {
    for (const entry of routes) {
      const operation = document.paths[entry.path]?.[entry.method.toLowerCase()];
      expect(operation, `${entry.method} ${entry.path}`).toBeDefined();
      const statuses = Object.keys(operation!.responses).map(Number);
      expect(statuses.some((status) => status < 300)).toBe(true);
      expect(statuses, `${entry.method} ${entry.path}`).toContain(500);
      const contract = contractOf(entry.method, entry.path)!;
      for (const status of Object.keys(contract.errors)) expect(statuses).toContain(Number(status));
    }
  });

  it('gives every tenant-scoped route the tenant guard answers', () => {
    let scopedRoutes = 0;
    for (const contract of contracts) {
      const shapes = [contract.body, contract.query, contract.form?.fields];
      const scoped = shapes.some(
        (shape) => shape && 'shape' in shape && 'tenant_id' in (shape.shape as Record<string, unknown>),
      );
      if (!scoped || contract.id === 'createTenant') continue;
      scopedRoutes++;
      expect(Object.keys(contract.errors), `${contract.method} ${contract.route}`).toEqual(
        expect.arrayContaining(['400', '404', '409']),
      );
    }
    // search, profiles, the five graph routes, queues, upload, presign, start, the seven profile routes, the
    // six wiki routes, chat completions, the three conversation routes, harness key minting, and messaging's
    // invite and send
    expect(scopedRoutes).toBe(31);
  });
});
