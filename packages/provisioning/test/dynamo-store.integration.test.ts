/** The DynamoDB provisioning store against the emulated DynamoDB: executions, resources, the storage quota. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoProvisioningStore,
  type ExecutionRecord,
  ingestionSlots,
  reserveUploadBytes,
} from '../src/index';

let emulators: Emulators;
let store: DynamoProvisioningStore;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'provisioning-store-')));
  store = new DynamoProvisioningStore();
});

afterAll(async () => {
  await emulators?.stop();
});

const execution = (revision: number): ExecutionRecord => ({
  execution_id: 'prov-x',
  tenant_id: 'a:b',
  input: {},
  status: 'running',
  attempt: 1,
  workflow_id: 'prov-x-a1',
  owner: 'o',
  lease_until: 0,
  steps: {},
  revision,
  created_at: 1,
  updated_at: 1,
});

describe('DynamoProvisioningStore (integration)', () => {
  it('creates an execution once and replaces it only at the revision it read', async () => {
    expect(await store.createExecution(execution(1))).toBe(true);
    expect(await store.createExecution(execution(1))).toBe(false);
    expect(await store.replaceExecution({ ...execution(2), status: 'failed' }, 1)).toBe(true);
    expect(await store.replaceExecution({ ...execution(3), status: 'succeeded' }, 1)).toBe(false);
    expect((await store.getExecution('a:b', 'prov-x'))?.status).toBe('failed');
  });

  it('counts uploads against the storage quota, never past it under concurrent uploads', async () => {
    await reserveUploadBytes(store, 'q:q', 10_000); // no quota: nothing counted, nothing refused
    await store.putResource('q:q', 'quota', {
      cpu_quota: 3,
      memory_quota: null,
      storage_quota: 1000,
      used_bytes: 100,
      updated_at: 1,
    });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => reserveUploadBytes(store, 'q:q', 100)),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(9);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({
      status: 413,
      message: "Tenant 'q:q' storage quota of 1000 bytes exceeded",
    });
    expect((await store.getResource('q:q', 'quota'))?.used_bytes).toBe(1000);
    expect(await ingestionSlots(store, 'q:q', 2)).toBe(3);
    expect(await ingestionSlots(store, 'none:here', 2)).toBe(2);
  });

  it('purges every execution and resource of a tenant, and only of that tenant', async () => {
    await store.putResource('a:b', 'namespace', { prefix: 'tenants/a:b/' });
    await store.purgeTenant('a:b');
    expect(await store.getExecution('a:b', 'prov-x')).toBeUndefined();
    expect(await store.getResource('a:b', 'namespace')).toBeUndefined();
    expect(await store.getResource('q:q', 'quota')).toBeDefined();
  });
});
