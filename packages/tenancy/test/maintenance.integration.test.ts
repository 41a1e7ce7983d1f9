import { connect } from '@lancedb/lancedb';
import type { HttpError } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import {
  createTenant,
  deleteTenant,
  migrateDriftedSchemas,
  reconcileOrphans,
  schemaDrift,
} from '../src/index';
import { catalog, uniqueOrg, useIntegrationHarness } from './support';

// One harness per test: orphan reports are global, so tests must not see each other's tables.
const h = useIntegrationHarness();

describe('reconcileOrphans', () => {
  it('reports orphans, their implied tenants, unrecovered names and tenant-orphans; a dry run drops nothing', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: `${org}:prod`, created_by: 'a' });
    await createTenant(h().deps, { tenant_id: `${org}:gone`, created_by: 'a' });
    // An unregistered table of a known base, for an existing organization's tenant.
    await h().backend.deploySchema(`wiki_${org}_prod`, catalog.get('wiki')!);
    // One for a tenant that never existed: bare form.
    await h().backend.deploySchema('code_ghost_ghost', catalog.get('code')!);
    // Unknown base prefix: needs an operator.
    await h().backend.deploySchema('mystery_table', catalog.get('wiki')!);
    // A registered schema whose tenant record is gone.
    await h().deps.store.deleteTenant(org, 'gone', (await h().deps.store.getTenant(org, 'gone'))!.revision);

    const report = await reconcileOrphans(h().deps, { dryRun: true, includeTenantOrphans: false });
    expect(report).toEqual({
      dry_run: true,
      deleted: [],
      orphan_schemas: ['code_ghost_ghost', 'mystery_table', `wiki_${org}_prod`],
      orphan_tenants: ['ghost:ghost', `${org}:prod`],
      unrecovered_schemas: ['mystery_table'],
      tenant_orphan_schemas: [{ schema_name: `video_frames_${org}_gone`, tenant_id: `${org}:gone` }],
    });
    expect(await h().backend.listSchemas()).toContain('code_ghost_ghost');
  });

  it('refuses to drop anything while an unrecovered schema exists', async () => {
    const before = await h().backend.listSchemas();
    try {
      await reconcileOrphans(h().deps, { dryRun: false, includeTenantOrphans: false });
      throw new Error('expected a refusal');
    } catch (error) {
      expect((error as HttpError).status).toBe(409);
      expect((error as Error).message).toMatch(/'mystery_table' has no registry record/);
    }
    expect(await h().backend.listSchemas()).toEqual(before);
  });

  it('drops orphans, and tenant-orphans only when asked', async () => {
    await h().backend.real.dropSchema('mystery_table');
    const report = await reconcileOrphans(h().deps, { dryRun: false, includeTenantOrphans: false });
    expect(report.deleted).toHaveLength(2);
    expect(report.deleted).toContain('code_ghost_ghost');
    const left = await h().backend.listSchemas();
    expect(left).not.toContain('code_ghost_ghost');
    expect(left.some((n) => n.endsWith('_gone'))).toBe(true);

    const withTenantOrphans = await reconcileOrphans(h().deps, { dryRun: false, includeTenantOrphans: true });
    expect(withTenantOrphans.deleted).toEqual([expect.stringMatching(/^video_frames_.*_gone$/)]);
    const after = await reconcileOrphans(h().deps, { dryRun: true, includeTenantOrphans: false });
    expect(after).toMatchObject({ orphan_schemas: [], unrecovered_schemas: [], tenant_orphan_schemas: [] });
  });
});

describe('schemaDrift', () => {
  it('is empty while every tenant runs the shipped definitions', async () => {
    expect(await schemaDrift(h().deps)).toEqual({ drifted: [] });
  });

  it('lists a schema whose registered definition differs from the shipped one', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const [row] = await h().deps.store.listRegistryRows(`${org}:${org}`);
    await h().deps.store.putRegistryRow({ ...row!, definition_hash: 'older0000000000' });
    const { drifted } = await schemaDrift(h().deps);
    expect(drifted).toEqual([
      {
        tenant_id: `${org}:${org}`,
        schema_name: `video_frames_${org}_${org}`,
        base_schema: 'video_frames',
        registered_hash: 'older0000000000',
        shipped_hash: row!.definition_hash,
        refusal: null,
      },
    ]);
    await deleteTenant(h().deps, org);
    expect(await schemaDrift(h().deps)).toEqual({ drifted: [] });
  });
});

describe('migrateDriftedSchemas', () => {
  it('adds the fields a shipped definition gained and clears the drift', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const name = `video_frames_${org}_${org}`;
    // The tenant was deployed from an older definition without `ingested_at`.
    const table = await (await connect(h().backend.real.uri)).openTable(name);
    await table.dropColumns(['ingested_at']);
    const [row] = await h().deps.store.listRegistryRows(`${org}:${org}`);
    await h().deps.store.putRegistryRow({ ...row!, definition_hash: 'older0000000000' });

    expect(await migrateDriftedSchemas(h().deps)).toEqual({ migrated: [name], refused: [] });
    const reopened = await (await connect(h().backend.real.uri)).openTable(name);
    expect((await reopened.schema()).fields.map((f) => f.name)).toContain('ingested_at');
    expect(await schemaDrift(h().deps)).toEqual({ drifted: [] });
    await deleteTenant(h().deps, org);
  });

  it('refuses a field type change, records the refusal and keeps the live definition', async () => {
    const org = uniqueOrg();
    await createTenant(h().deps, { tenant_id: org, created_by: 'a' });
    const name = `video_frames_${org}_${org}`;
    const table = await (await connect(h().backend.real.uri)).openTable(name);
    await table.dropColumns(['frame_id']);
    await table.addColumns([{ name: 'frame_id', valueSql: "CAST('0' AS STRING)" }]);
    const [row] = await h().deps.store.listRegistryRows(`${org}:${org}`);
    await h().deps.store.putRegistryRow({ ...row!, definition_hash: 'older0000000000' });

    const summary = await migrateDriftedSchemas(h().deps);
    expect(summary.migrated).toEqual([]);
    expect(summary.refused[0]?.refusal).toMatch(/field 'frame_id' would change type from Utf8 to Int32/);
    const { drifted } = await schemaDrift(h().deps);
    expect(drifted).toEqual([
      expect.objectContaining({ schema_name: name, refusal: summary.refused[0]!.refusal }),
    ]);
    expect(String((await table.schema()).fields.find((f) => f.name === 'frame_id')?.type)).toBe('Utf8');
    await deleteTenant(h().deps, org);
  });
});
