import { describe, expect, it } from 'vitest';
import {
  createOrganization,
  createTenant,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  listOrganizationTenants,
} from '../src/index';
import { failure, uniqueOrg, useHarness } from './support';

const h = useHarness();
const status = async (call: Promise<unknown>) => {
  const { status, detail } = await failure(call);
  return [status, detail] as const;
};

describe('organizations', () => {
  it('creates an organization with the given name and refuses a duplicate', async () => {
    const org = uniqueOrg();
    const created = await createOrganization(h().deps, {
      org_id: org,
      org_name: 'Acme Corp',
      created_by: 'bob',
    });
    expect(created).toMatchObject({
      org_id: org,
      org_name: 'Acme Corp',
      created_by: 'bob',
      status: 'active',
      tenant_count: 0,
      config: {},
    });
    expect(await status(createOrganization(h().deps, { org_id: org, created_by: 'bob' }))).toEqual([
      409,
      `Organization ${org} already exists`,
    ]);
  });

  it('validates the org id', async () => {
    expect(await status(createOrganization(h().deps, { org_id: '', created_by: 'a' }))).toEqual([
      400,
      'org_id cannot be empty',
    ]);
    expect((await status(createOrganization(h().deps, { org_id: 'a:b', created_by: 'a' })))[0]).toBe(400);
    expect((await status(createOrganization(h().deps, { org_id: '__system__', created_by: 'a' })))[0]).toBe(
      400,
    );
  });

  it('lists organizations with tenant counts and an organization tenants', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: `${org}:a`, created_by: 'x' });
    await createTenant(h().deps, { tenant_id: `${org}:b`, created_by: 'x' });
    const { organizations, total_count } = await listOrganizations(h().deps);
    expect(total_count).toBe(organizations.length);
    expect(organizations.find((o) => o.org_id === org)?.tenant_count).toBe(2);
    const tenants = await listOrganizationTenants(h().deps, org);
    expect(tenants.org_id).toBe(org);
    expect(tenants.total_count).toBe(2);
    expect(tenants.tenants.map((t) => t.tenant_full_id)).toEqual([`${org}:a`, `${org}:b`]);
  });

  it('answers 404 for an absent organization', async () => {
    const org = uniqueOrg();
    expect(await status(getOrganization(h().deps, org))).toEqual([404, `Organization ${org} not found`]);
    expect(await status(listOrganizationTenants(h().deps, org))).toEqual([
      404,
      `Organization ${org} not found`,
    ]);
    expect(await status(deleteOrganization(h().deps, org))).toEqual([404, `Organization ${org} not found`]);
  });

  it('deletes every tenant first, then the organization', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: `${org}:a`, created_by: 'x' });
    await createTenant(h().deps, { tenant_id: `${org}:b`, created_by: 'x', base_schemas: ['wiki', 'code'] });
    expect(await deleteOrganization(h().deps, org)).toEqual({
      status: 'deleted',
      org_id: org,
      tenants_deleted: 2,
      deleted_tenant_ids: [`${org}:a`, `${org}:b`],
    });
    expect((await h().backend.listSchemas()).filter((n) => n.includes(org))).toEqual([]);
    expect((await status(getOrganization(h().deps, org)))[0]).toBe(404);
  });

  it('keeps the organization when a tenant delete does not finish', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: `${org}:a`, created_by: 'x' });
    h().backend.failDrop.add(`video_frames_${org}_a`);
    try {
      const [code, detail] = await status(deleteOrganization(h().deps, org));
      expect(code).toBe(503);
      expect(detail).toMatchObject({ error: 'tenant_delete_incomplete' });
      expect((await getOrganization(h().deps, org)).org_id).toBe(org);
    } finally {
      h().backend.failDrop.clear();
    }
    expect((await deleteOrganization(h().deps, org)).deleted_tenant_ids).toEqual([`${org}:a`]);
  });
});
