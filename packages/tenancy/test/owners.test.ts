/** The registry of stores holding tenant data, as a tenant delete runs it. */
import type { TenantDataOwner } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { createTenant, deleteTenant, getTenant, TenantDataOwners } from '../src/index';
import { failure, uniqueOrg, useHarness } from './support';

const h = useHarness();

/** An owner that records its calls in `calls`, and fails its purge while `failing` says so. */
function recording(name: string, calls: string[], failing = { purge: false }): TenantDataOwner {
  return {
    name,
    async stop(tenant) {
      calls.push(`stop ${name} ${tenant.full}`);
    },
    async purge(tenant) {
      calls.push(`purge ${name} ${tenant.full}`);
      if (failing.purge) throw new Error('store not answering');
    },
  };
}

describe('TenantDataOwners', () => {
  it('stops every owner before purging any, then purges them in the order they registered', async () => {
    const calls: string[] = [];
    const owners = new TenantDataOwners()
      .register(recording('jobs', calls))
      .register({
        name: 'profiles',
        purge: async (tenant) => void calls.push(`purge profiles ${tenant.full}`),
      })
      .register(recording('events', calls));
    expect(owners.names).toEqual(['jobs', 'profiles', 'events']);
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'test' });
    await deleteTenant({ ...h().deps, owners }, org);
    const full = `${org}:${org}`;
    expect(calls).toEqual([
      `stop jobs ${full}`,
      `stop events ${full}`,
      `purge jobs ${full}`,
      `purge profiles ${full}`,
      `purge events ${full}`,
    ]);
  });

  it('replaces an owner registered again under its name, keeping its place', () => {
    const calls: string[] = [];
    const owners = new TenantDataOwners()
      .register(recording('jobs', calls))
      .register(recording('events', calls))
      .register(recording('jobs', calls));
    expect(owners.names).toEqual(['jobs', 'events']);
  });

  it('leaves the tenant marked deleted when a purge fails, naming the store, and a repeated delete purges again', async () => {
    const calls: string[] = [];
    const failing = { purge: true };
    const owners = new TenantDataOwners()
      .register(recording('jobs', calls, failing))
      .register(recording('events', calls));
    const deps = { ...h().deps, owners };
    const org = uniqueOrg();
    await createTenant(deps, { tenant_id: org, created_by: 'test' });

    const refused = await failure(deleteTenant(deps, org));
    expect(refused.status).toBe(503);
    expect(JSON.stringify(refused.detail)).toContain('jobs: store not answering');
    // The next store was not purged, and the tenant's schemas and record are still there.
    expect(calls.filter((call) => call.startsWith('purge'))).toEqual([`purge jobs ${org}:${org}`]);
    expect(await h().deps.store.getTenant(org, org)).toMatchObject({ status: 'marked_deleted' });
    expect((await h().backend.listSchemas()).filter((name) => name.endsWith(`_${org}_${org}`))).not.toEqual(
      [],
    );

    failing.purge = false;
    calls.length = 0;
    expect(await deleteTenant(deps, org)).toMatchObject({ status: 'deleted' });
    expect(calls.filter((call) => call.startsWith('purge'))).toEqual([
      `purge jobs ${org}:${org}`,
      `purge events ${org}:${org}`,
    ]);
    expect((await failure(getTenant(deps, org))).status).toBe(404);
    expect((await h().backend.listSchemas()).filter((name) => name.endsWith(`_${org}_${org}`))).toEqual([]);
  });

  it('refuses to remove a tenant with deps that name no owners, before changing anything', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'test' });
    const { owners: _owners, ...bare } = h().deps;
    await expect(deleteTenant(bare, org)).rejects.toThrow(/name no tenant-data owners/);
    expect(await getTenant(h().deps, org)).toMatchObject({ status: 'active' });
    await deleteTenant(h().deps, org);
  });
});
