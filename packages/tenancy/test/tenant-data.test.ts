/** Deploys and drops of one schema of a tenant on request (a profile's deploy and delete). */
import { describe, expect, it } from 'vitest';
import { createTenant, deployTenantSchema, dropTenantSchema, getTenant, requireTenant } from '../src/index';
import { uniqueOrg, useHarness } from './support';

const h = useHarness();

describe('deployTenantSchema and dropTenantSchema', () => {
  it('deploys a schema once (again with force), records it, and drops it with its row and record entry', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const guarded = await requireTenant(h().deps, org);
    expect(await deployTenantSchema(h().deps, guarded.tenant, guarded.record, 'code')).toEqual({
      schemaName: `code_${org}_${org}`,
      status: 'success',
    });
    expect((await deployTenantSchema(h().deps, guarded.tenant, guarded.record, 'code')).status).toBe(
      'already_deployed',
    );
    expect(
      (await deployTenantSchema(h().deps, guarded.tenant, guarded.record, 'code', { force: true })).status,
    ).toBe('success');
    expect((await getTenant(h().deps, org)).schemas_deployed).toEqual(['video_frames', 'code']);
    const fresh = await requireTenant(h().deps, org);
    expect(await dropTenantSchema(h().deps, fresh.tenant, fresh.record, 'code')).toEqual({
      schemaName: `code_${org}_${org}`,
      dropped: true,
    });
    expect(await h().backend.listSchemas()).not.toContain(`code_${org}_${org}`);
    expect((await h().deps.store.listRegistryRows(`${org}:${org}`)).map((r) => r.base_schema)).toEqual([
      'video_frames',
    ]);
    expect((await getTenant(h().deps, org)).schemas_deployed).toEqual(['video_frames']);
    expect((await dropTenantSchema(h().deps, fresh.tenant, fresh.record, 'code')).dropped).toBe(false);
  });

  it('removes the registry row again when the table cannot be made', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const { tenant, record } = await requireTenant(h().deps, org);
    h().backend.failDeploy.add(`image_${org}_${org}`);
    await expect(deployTenantSchema(h().deps, tenant, record, 'image')).rejects.toThrow(/disk full/);
    expect((await h().deps.store.listRegistryRows(tenant.full)).map((r) => r.base_schema)).toEqual([
      'video_frames',
    ]);
    h().backend.failDeploy.clear();
  });
});
