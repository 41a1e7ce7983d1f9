/**
 * Test wiring: the tenancy domain over fakes (an in-memory store and search backend), or, for the tests
 * that look into LanceDB tables, over the emulated DynamoDB and LanceDB in a temporary directory.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpError } from '@tessera/core';
import { startLocalBackends } from '@tessera/emulators';
import {
  LanceSearchBackend,
  lanceConnection,
  SchemaCatalog,
  type SchemaTemplate,
  type SearchBackend,
} from '@tessera/search';
import { InMemorySearchBackend, InMemoryTenancyStore } from '@tessera/testing/fakes';
import { afterAll, beforeAll } from 'vitest';
import { DynamoTenancyStore, type TenancyDeps, type TenancyStore, TenantDataOwners } from '../src/index';

export const catalog = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas'));

/** A backend with failures that a test switches on by schema name. */
export class FaultyBackend<Real extends SearchBackend = SearchBackend> implements SearchBackend {
  readonly failDeploy = new Set<string>();
  readonly failDrop = new Set<string>();

  constructor(readonly real: Real) {}

  async deploySchema(name: string, template: SchemaTemplate) {
    if (this.failDeploy.has(name)) throw new Error(`disk full while creating ${name}`);
    return this.real.deploySchema(name, template);
  }

  listSchemas() {
    return this.real.listSchemas();
  }

  async dropSchema(name: string) {
    if (this.failDrop.has(name)) throw new Error(`storage timeout dropping ${name}`);
    return this.real.dropSchema(name);
  }

  migrateSchema(name: string, template: SchemaTemplate) {
    return this.real.migrateSchema(name, template);
  }

  ping() {
    return this.real.ping();
  }
}

export interface TenancyHarness<Real extends SearchBackend> {
  deps: TenancyDeps;
  backend: FaultyBackend<Real>;
  clock: { now: number };
  stop(): Promise<void>;
}

function harness<Real extends SearchBackend>(store: TenancyStore, real: Real, stop = async () => {}) {
  const backend = new FaultyBackend(real);
  const clock = { now: Date.now() };
  const deps: TenancyDeps = {
    store,
    backend,
    catalog,
    now: () => clock.now,
    createLeaseMs: 60_000,
    defaultBaseSchemas: ['video_frames'],
    // The tenancy domain's own data only; the stores of other domains are purged in their tests.
    owners: new TenantDataOwners(),
  };
  return { deps, backend, clock, stop };
}

let counter = 0;
/** A fresh organization id per test, so tests in one file never see each other's tenants. */
export const uniqueOrg = (prefix = 'org') => `${prefix}${Date.now().toString(36)}${counter++}`;

/** One harness over fakes for the test file. */
export function useHarness(): () => TenancyHarness<InMemorySearchBackend> {
  const made = harness(new InMemoryTenancyStore(), new InMemorySearchBackend());
  return () => made;
}

/** One harness over the emulated DynamoDB and LanceDB for the test file, started before its tests. */
export function useIntegrationHarness(): () => TenancyHarness<LanceSearchBackend> {
  let made: TenancyHarness<LanceSearchBackend> | undefined;
  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tenancy-'));
    const emulators = await startLocalBackends(dataDir);
    const real = new LanceSearchBackend(lanceConnection(path.join(dataDir, 'lancedb')));
    made = harness(new DynamoTenancyStore(), real, () => emulators.stop());
  });
  afterAll(async () => {
    await made?.stop();
  });
  return () => made!;
}

/** The status and detail a domain call fails with; throws if it does not fail with an HttpError. */
export async function failure(promise: Promise<unknown>): Promise<{ status: number; detail: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, detail: error.detail };
    throw error;
  }
  throw new Error('expected the call to fail');
}
