import { describe, expect, it, vi } from 'vitest';
import {
  createTenant,
  deleteTenant,
  ensureTenantSchema,
  getOrganization,
  getTenant,
  getTier,
  recoverInterruptedCreates,
  requireTenant,
  setTier,
} from '../src/index';
import { catalog, failure, uniqueOrg, useHarness } from './support';

const h = useHarness();

const tablesOf = async (org: string) =>
  (await h().backend.listSchemas()).filter((n) => n.includes(`_${org}_`));

describe('createTenant', () => {
  it('creates the tenant, its organization and its primary schema with a registry row', async () => {
    const org = uniqueOrg();
    const tenant = await createTenant(h().deps, { tenant_id: org, created_by: 'alice' });
    expect(tenant).toMatchObject({
      tenant_full_id: `${org}:${org}`,
      org_id: org,
      tenant_name: org,
      created_by: 'alice',
      status: 'active',
      schemas_deployed: ['video_frames'],
    });
    expect(typeof tenant.created_at).toBe('number');
    const organization = await getOrganization(h().deps, org);
    expect(organization).toMatchObject({
      org_id: org,
      org_name: org.charAt(0).toUpperCase() + org.slice(1),
      created_by: 'alice',
      status: 'active',
      tenant_count: 1,
      config: {},
    });
    expect(await tablesOf(org)).toEqual([`video_frames_${org}_${org}`]);
    const rows = await h().deps.store.listRegistryRows(`${org}:${org}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ base_schema: 'video_frames', kind: 'primary', migration_refusal: null });
  });

  it('accepts org_id with a bare tenant_id, and a full tenant_id', async () => {
    const org = uniqueOrg();
    expect(
      (await createTenant(h().deps, { org_id: org, tenant_id: 'prod', created_by: 'a' })).tenant_full_id,
    ).toBe(`${org}:prod`);
    expect((await createTenant(h().deps, { tenant_id: `${org}:dev`, created_by: 'a' })).tenant_full_id).toBe(
      `${org}:dev`,
    );
    expect((await getOrganization(h().deps, org)).tenant_count).toBe(2);
  });

  it('refuses a full tenant_id whose organization differs from org_id', async () => {
    const result = await failure(
      createTenant(h().deps, { org_id: 'aaa', tenant_id: 'bbb:ccc', created_by: 'a' }),
    );
    expect(result.status).toBe(400);
  });

  it('answers 409 for a duplicate, in bare or full form', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    expect(await failure(createTenant(h().deps, { tenant_id: `${org}:${org}`, created_by: 'a' }))).toEqual({
      status: 409,
      detail: `Tenant ${org}:${org} already exists`,
    });
  });

  it('lets exactly one of many concurrent creates of the same tenant succeed', async () => {
    const org = uniqueOrg();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => createTenant(h().deps, { tenant_id: org, created_by: 'a' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason.status).toBe(409);
    }
    expect(await tablesOf(org)).toEqual([`video_frames_${org}_${org}`]);
  });

  it('refuses an unknown base schema before writing anything', async () => {
    const org = uniqueOrg();
    const result = await failure(
      createTenant(h().deps, { tenant_id: org, created_by: 'a', base_schemas: ['nope'] }),
    );
    expect(result.status).toBe(400);
    expect(result.detail).toMatch(/Unknown base schema 'nope'/);
    expect(await h().deps.store.getOrganization(org)).toBeUndefined();
    expect(await h().deps.store.getTenant(org, org)).toBeUndefined();
  });

  it('refuses the reserved system tenant', async () => {
    expect((await failure(createTenant(h().deps, { tenant_id: '__system__', created_by: 'a' }))).status).toBe(
      400,
    );
  });

  it('answers 502 naming the failed schema and leaves nothing behind when a deploy fails', async () => {
    const org = uniqueOrg();
    h().backend.failDeploy.add(`code_${org}_${org}`);
    const result = await failure(
      createTenant(h().deps, { tenant_id: org, created_by: 'a', base_schemas: ['video_frames', 'code'] }),
    );
    expect(result).toEqual({
      status: 502,
      detail: `Tenant ${org}:${org} not created: schema deploy failed for ['code_${org}_${org}']`,
    });
    expect(await h().deps.store.getTenant(org, org)).toBeUndefined();
    expect(await h().deps.store.getOrganization(org)).toBeUndefined();
    expect(await h().deps.store.listRegistryRows(`${org}:${org}`)).toEqual([]);
    expect(await tablesOf(org)).toEqual([]);
  });
});

describe('createTenant: schema names', () => {
  /** Every schema name a tenant with this suffix could deploy, as the conflict message lists them. */
  const namesOf = (suffix: string) =>
    catalog
      .baseNames()
      .map((base) => `${base}_${suffix}`)
      .sort()
      .join(', ');

  it('refuses a tenant whose schema names equal a registered tenant, naming both and every shared name', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: `${org}:b_c`, created_by: 'a' });
    expect(await failure(createTenant(h().deps, { tenant_id: `${org}_b:c`, created_by: 'a' }))).toEqual({
      status: 409,
      detail: `Tenant '${org}_b:c' conflicts with tenant '${org}:b_c': both map to schema names ${namesOf(`${org}_b_c`)}`,
    });
    // Nothing of the refused tenant was made: no record, no organization, no table.
    expect(await h().deps.store.getTenant(`${org}_b`, 'c')).toBeUndefined();
    expect(await h().deps.store.getOrganization(`${org}_b`)).toBeUndefined();
    expect(await tablesOf(org)).toEqual([`video_frames_${org}_b_c`]);
    expect(await h().deps.store.listRegistryRows(`${org}:b_c`)).toHaveLength(1);
  });

  it('refuses a bare id that maps to the names of a full one', async () => {
    // `o_o` is `o_o:o_o`, suffix `o_o_o_o`; so is `o:o_o_o`.
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: `${org}_${org}`, created_by: 'a' });
    const refused = await failure(
      createTenant(h().deps, { tenant_id: `${org}:${org}_${org}_${org}`, created_by: 'a' }),
    );
    expect(refused.status).toBe(409);
    expect(refused.detail).toMatch(`conflicts with tenant '${org}_${org}:${org}_${org}'`);
  });

  it('lets exactly one of two racing creates that share schema names through', async () => {
    const org = uniqueOrg();
    const results = await Promise.allSettled([
      createTenant(h().deps, { tenant_id: `${org}:b_c`, created_by: 'a' }),
      createTenant(h().deps, { tenant_id: `${org}_b:c`, created_by: 'a' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.status).toBe(409);
    expect(refused.reason.detail).toMatch(/conflicts with tenant/);
    expect(await tablesOf(org)).toEqual([`video_frames_${org}_b_c`]);
  });

  it('gives the names free again when the tenant holding them is deleted', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: `${org}:b_c`, created_by: 'a' });
    await deleteTenant(h().deps, `${org}:b_c`);
    expect((await createTenant(h().deps, { tenant_id: `${org}_b:c`, created_by: 'a' })).status).toBe(
      'active',
    );
    expect(await tablesOf(org)).toEqual([`video_frames_${org}_b_c`]);
    // And the tenant first created can come back once the other is gone.
    expect((await failure(createTenant(h().deps, { tenant_id: `${org}:b_c`, created_by: 'a' }))).status).toBe(
      409,
    );
    await deleteTenant(h().deps, `${org}_b:c`);
    expect((await createTenant(h().deps, { tenant_id: `${org}:b_c`, created_by: 'a' })).status).toBe(
      'active',
    );
  });

  it('takes over a claim left by a tenant whose record is gone (a delete that stopped before releasing it)', async () => {
    const org = uniqueOrg();
    expect(await h().deps.store.claimSchemaSuffix(`${org}_b_c`, `${org}:b_c`)).toBeUndefined();
    expect((await createTenant(h().deps, { tenant_id: `${org}_b:c`, created_by: 'a' })).status).toBe(
      'active',
    );
    expect(await h().deps.store.claimSchemaSuffix(`${org}_b_c`, `${org}:b_c`)).toBe(`${org}_b:c`);
  });

  it('refuses a tenant whose names a table holds that no tenant registered', async () => {
    const org = uniqueOrg();
    await h().backend.deploySchema(`wiki_${org}_b_c`, catalog.get('wiki')!);
    const refused = await failure(createTenant(h().deps, { tenant_id: `${org}_b:c`, created_by: 'a' }));
    expect(refused).toEqual({
      status: 409,
      detail:
        `Tenant '${org}_b:c' conflicts with schema names wiki_${org}_b_c: the search backend holds them and no ` +
        'tenant registered them. Review them with POST /admin/reconcile-orphans?dry_run=true.',
    });
    expect(await h().deps.store.getTenant(`${org}_b`, 'c')).toBeUndefined();
    // The claim went with the refusal: once the table is gone, the create goes through.
    await h().backend.real.dropSchema(`wiki_${org}_b_c`);
    expect((await createTenant(h().deps, { tenant_id: `${org}_b:c`, created_by: 'a' })).status).toBe(
      'active',
    );
  });

  it('refuses a tenant whose auxiliary schema names another tenant deployed', async () => {
    const org = uniqueOrg();
    const first = await createTenant(h().deps, { tenant_id: `${org}:b_c`, created_by: 'a' });
    await ensureTenantSchema(h().deps, first.tenant_full_id, 'knowledge_graph');
    const refused = await failure(createTenant(h().deps, { tenant_id: `${org}_b:c`, created_by: 'a' }));
    expect(refused.detail).toMatch(`knowledge_graph_${org}_b_c`);
  });
});

describe('deleteTenant', () => {
  it('drops the schemas, registry rows, tier and record', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, {
      tenant_id: org,
      created_by: 'a',
      base_schemas: ['video_frames', 'document_text'],
    });
    await setTier(h().deps, org, 'pro');
    expect(await deleteTenant(h().deps, org)).toEqual({
      status: 'deleted',
      tenant_full_id: `${org}:${org}`,
      schemas_deleted: 2,
      deleted_schemas: [`document_text_${org}_${org}`, `video_frames_${org}_${org}`],
    });
    expect(await tablesOf(org)).toEqual([]);
    expect(await h().deps.store.listRegistryRows(`${org}:${org}`)).toEqual([]);
    expect(await h().deps.store.getTier(`${org}:${org}`)).toBeUndefined();
    expect((await failure(getTenant(h().deps, org))).status).toBe(404);
    // The organization stays when its last tenant goes.
    expect((await getOrganization(h().deps, org)).tenant_count).toBe(0);
  });

  it('answers 404 for an absent tenant', async () => {
    const org = uniqueOrg();
    expect(await failure(deleteTenant(h().deps, `${org}:x`))).toEqual({
      status: 404,
      detail: `Tenant ${org}:x not found`,
    });
  });

  it('marks the tenant deleted when a step fails, refuses it everywhere, and finishes on a repeated delete', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const schema = `video_frames_${org}_${org}`;
    h().backend.failDrop.add(schema);
    const first = await failure(deleteTenant(h().deps, org));
    expect(first.status).toBe(503);
    expect(first.detail).toMatchObject({ error: 'tenant_delete_incomplete', tenant_id: `${org}:${org}` });
    expect((await getTenant(h().deps, org)).status).toBe('marked_deleted');
    const guarded = await failure(requireTenant(h().deps, org));
    expect(guarded.status).toBe(409);
    expect(guarded.detail).toMatch(/marked deleted/);
    expect((await failure(setTier(h().deps, org, 'pro'))).status).toBe(409);

    h().backend.failDrop.delete(schema);
    expect((await deleteTenant(h().deps, org)).deleted_schemas).toEqual([schema]);
    expect(await tablesOf(org)).toEqual([]);
  });

  it('lets a create of a tenant marked deleted finish the delete first', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a', base_schemas: ['wiki'] });
    h().backend.failDrop.add(`wiki_${org}_${org}`);
    await failure(deleteTenant(h().deps, org));
    const stillFailing = await failure(createTenant(h().deps, { tenant_id: org, created_by: 'b' }));
    expect(stillFailing.status).toBe(503);
    h().backend.failDrop.clear();
    const recreated = await createTenant(h().deps, { tenant_id: org, created_by: 'b' });
    expect(recreated).toMatchObject({
      status: 'active',
      created_by: 'b',
      schemas_deployed: ['video_frames'],
    });
    expect(await tablesOf(org)).toEqual([`video_frames_${org}_${org}`]);
  });

  it('drops a deployed, unregistered schema that can only be the tenant own', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    await h().backend.deploySchema(`wiki_${org}_${org}`, catalog.get('wiki')!);
    expect((await deleteTenant(h().deps, org)).deleted_schemas).toEqual([
      `video_frames_${org}_${org}`,
      `wiki_${org}_${org}`,
    ]);
  });

  it('refuses to drop an unregistered schema that a peer tenant could own', async () => {
    // `x:y_z` and `x_y:z` share the suffix `_x_y_z`: a create refuses the second now, but both can exist
    // when they were created before schema names were claimed.
    const org = uniqueOrg();
    const first = await createTenant(h().deps, { tenant_id: `${org}:y_z`, created_by: 'a' });
    await h().deps.store.putTenantIfAbsent({
      ...first,
      tenant_full_id: `${org}_y:z`,
      org_id: `${org}_y`,
      tenant_name: 'z',
      revision: 1,
    });
    const ambiguous = `wiki_${org}_y_z`;
    await h().backend.deploySchema(ambiguous, catalog.get('wiki')!);
    const refused = await failure(deleteTenant(h().deps, `${org}:y_z`));
    expect(refused.status).toBe(409);
    expect(refused.detail).toMatch(new RegExp(`Schema '${ambiguous}' has no registry record`));
    expect((await getTenant(h().deps, `${org}:y_z`)).status).toBe('active');
    expect(await h().backend.listSchemas()).toContain(ambiguous);
    await h().backend.real.dropSchema(ambiguous);
  });

  it('refuses every delete while a schema with an unknown base is deployed', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const stray = `mystery_${org}_${org}`;
    await h().backend.deploySchema(stray, catalog.get('wiki')!);
    const refused = await failure(deleteTenant(h().deps, org));
    expect(refused.status).toBe(409);
    expect(refused.detail).toMatch(
      new RegExp(`Schema '${stray}' has no registry record and no known base schema`),
    );
    expect(await tablesOf(org)).toContain(`video_frames_${org}_${org}`);
    await h().backend.real.dropSchema(stray);
    expect((await deleteTenant(h().deps, org)).status).toBe('deleted');
  });
});

describe('requireTenant', () => {
  it('answers 404 in the spec wording for an unregistered tenant, 400 for a malformed id', async () => {
    const org = uniqueOrg();
    expect(await failure(requireTenant(h().deps, org))).toEqual({
      status: 404,
      detail: `Tenant '${org}:${org}' not registered.`,
    });
    expect((await failure(requireTenant(h().deps, 'a:b:c'))).status).toBe(400);
  });

  it('accepts the bare and the full form alike', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    expect((await requireTenant(h().deps, org)).tenant.full).toBe(
      (await requireTenant(h().deps, `${org}:${org}`)).tenant.full,
    );
  });
});

describe('ensureTenantSchema', () => {
  it('deploys an auxiliary schema once, on first write, and records it on the tenant', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const [a, b] = await Promise.all([
      ensureTenantSchema(h().deps, org, 'knowledge_graph'),
      ensureTenantSchema(h().deps, org, 'knowledge_graph'),
    ]);
    expect(a).toBe(`knowledge_graph_${org}_${org}`);
    expect(b).toBe(a);
    expect(await tablesOf(org)).toEqual([a, `video_frames_${org}_${org}`]);
    expect((await getTenant(h().deps, org)).schemas_deployed).toEqual(['video_frames', 'knowledge_graph']);
    const rows = await h().deps.store.listRegistryRows(`${org}:${org}`);
    expect(rows.find((r) => r.schema_name === a)?.kind).toBe('auxiliary');
    expect((await deleteTenant(h().deps, org)).schemas_deleted).toBe(2);
  });

  it('refuses an unregistered tenant', async () => {
    expect((await failure(ensureTenantSchema(h().deps, uniqueOrg(), 'wiki'))).status).toBe(404);
  });

  it('reads nothing for a schema the tenant lists or this process deployed, and deploys again for a tenant created anew', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const reads = vi.spyOn(h().deps.store, 'listRegistryRows');
    try {
      const guarded = await requireTenant(h().deps, org);
      expect(await ensureTenantSchema(h().deps, guarded, 'video_frames')).toBe(`video_frames_${org}_${org}`);
      expect(reads).not.toHaveBeenCalled();
      await ensureTenantSchema(h().deps, guarded, 'wiki');
      // The guarded record is older than the deploy: this process remembers it.
      await ensureTenantSchema(h().deps, guarded, 'wiki');
      expect(reads).toHaveBeenCalledTimes(1);
      expect(await tablesOf(org)).toContain(`wiki_${org}_${org}`);

      await deleteTenant(h().deps, org);
      await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
      await ensureTenantSchema(h().deps, await requireTenant(h().deps, org), 'wiki');
      expect(await tablesOf(org)).toEqual([`video_frames_${org}_${org}`, `wiki_${org}_${org}`]);
      expect((await getTenant(h().deps, org)).schemas_deployed).toEqual(['video_frames', 'wiki']);
    } finally {
      reads.mockRestore();
    }
  });
});

describe('tiers', () => {
  it('stores the tier apart from the tenant record and reads it back', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    expect((await getTier(h().deps, org)).tier).toBeNull();
    await setTier(h().deps, org, 'pro');
    expect(await getTier(h().deps, `${org}:${org}`)).toMatchObject({
      tenant_id: `${org}:${org}`,
      tier: 'pro',
    });
    expect(await getTenant(h().deps, org)).not.toHaveProperty('tier');
  });

  it('answers 404 for an unregistered tenant', async () => {
    expect((await failure(setTier(h().deps, uniqueOrg(), 'pro'))).status).toBe(404);
  });
});

describe('recoverInterruptedCreates', () => {
  it('rolls back a create whose lease expired and lets a new create take its place', async () => {
    const org = uniqueOrg();
    const now = h().clock.now;
    await h().deps.store.putTenantIfAbsent({
      tenant_full_id: `${org}:${org}`,
      org_id: org,
      tenant_name: org,
      created_at: now,
      created_by: 'a',
      status: 'creating',
      schemas_deployed: [],
      revision: 1,
      lease_expires_at: now + 1000,
      created_org: true,
    });
    await h().deps.store.putOrganizationIfAbsent({
      org_id: org,
      org_name: org,
      created_at: now,
      created_by: 'a',
      status: 'active',
      config: {},
    });
    await h().deps.store.putRegistryRow({
      tenant_full_id: `${org}:${org}`,
      schema_name: `video_frames_${org}_${org}`,
      base_schema: 'video_frames',
      definition_hash: 'x',
      kind: 'primary',
      registered_at: now,
      migration_refusal: null,
    });
    await h().backend.deploySchema(`video_frames_${org}_${org}`, catalog.get('video_frames')!);

    // While the lease lives the create is invisible and a second create is a conflict.
    expect((await failure(getTenant(h().deps, org))).status).toBe(404);
    expect((await failure(createTenant(h().deps, { tenant_id: org, created_by: 'b' }))).status).toBe(409);
    expect(await recoverInterruptedCreates(h().deps)).not.toContain(`${org}:${org}`);

    h().clock.now = now + 2000;
    try {
      expect(await recoverInterruptedCreates(h().deps)).toContain(`${org}:${org}`);
      expect(await h().deps.store.getTenant(org, org)).toBeUndefined();
      expect(await h().deps.store.getOrganization(org)).toBeUndefined();
      expect(await tablesOf(org)).toEqual([]);
      expect((await createTenant(h().deps, { tenant_id: org, created_by: 'b' })).status).toBe('active');
    } finally {
      h().clock.now = now;
    }
  });
});
