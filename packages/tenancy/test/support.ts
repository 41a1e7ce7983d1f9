/** Test wiring: real DynamoDB (dynalite) and real LanceDB in a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpError } from '@tessera/core';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import {
  LanceSearchBackend,
  lanceConnection,
  SchemaCatalog,
  type SchemaTemplate,
  type SearchBackend,
} from '@tessera/search';
import { afterAll, beforeAll } from 'vitest';
import { DynamoTenancyStore, type TenancyDeps } from '../src/index';

export const catalog = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas'));

/** The real backend, with failures that a test switches on by schema name. */
export class FaultyBackend implements SearchBackend {
  readonly failDeploy = new Set<string>();
  readonly failDrop = new Set<string>();

  constructor(readonly real: LanceSearchBackend) {}

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

export interface TenancyHarness {
  deps: TenancyDeps;
  backend: FaultyBackend;
  emulators: Emulators;
  clock: { now: number };
}

export async function startHarness(): Promise<TenancyHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tenancy-'));
  const emulators = await startLocalBackends(dataDir);
  const backend = new FaultyBackend(new LanceSearchBackend(lanceConnection(path.join(dataDir, 'lancedb'))));
  const clock = { now: Date.now() };
  const deps: TenancyDeps = {
    store: new DynamoTenancyStore(),
    backend,
    catalog,
    now: () => clock.now,
    createLeaseMs: 60_000,
    defaultBaseSchemas: ['video_frames'],
  };
  return { deps, backend, emulators, clock };
}

let counter = 0;
/** A fresh organization id per test, so tests in one file never see each other's tenants. */
export const uniqueOrg = (prefix = 'org') => `${prefix}${Date.now().toString(36)}${counter++}`;

/** One harness for the test file, started before its tests and stopped after them. */
export function useHarness(): () => TenancyHarness {
  let harness: TenancyHarness | undefined;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.emulators.stop();
  });
  return () => harness!;
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
