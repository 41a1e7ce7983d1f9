/** The contract of `TenancyStore`: conditional creates, revision-checked changes, per-tenant rows. */
import type { TenancyStore, TenantRecord } from '@tessera/tenancy';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

const tenant = (org: string, name: string, revision = 1): TenantRecord => ({
  tenant_full_id: `${org}:${name}`,
  org_id: org,
  tenant_name: name,
  created_at: 1,
  created_by: 'a',
  status: 'active',
  schemas_deployed: ['video_frames'],
  revision,
});

export function tenancyStoreContract(label: string, make: () => TenancyStore): void {
  describe(`${label} (TenancyStore contract)`, () => {
    it('creates an organization or a tenant once, and lists them', async () => {
      const store = make();
      const org = unique('org');
      const organization = {
        org_id: org,
        org_name: 'Org',
        created_at: 1,
        created_by: 'a',
        status: 'active' as const,
        config: {},
      };
      expect(await store.putOrganizationIfAbsent(organization)).toBe(true);
      expect(await store.putOrganizationIfAbsent({ ...organization, org_name: 'Other' })).toBe(false);
      expect(await store.getOrganization(org)).toEqual(organization);
      expect((await store.listOrganizations()).map((o) => o.org_id)).toContain(org);
      expect(await store.putTenantIfAbsent(tenant(org, 'a'))).toBe(true);
      expect(await store.putTenantIfAbsent(tenant(org, 'a', 7))).toBe(false);
      await store.putTenantIfAbsent(tenant(org, 'b'));
      expect((await store.listTenants(org)).map((t) => t.tenant_name).sort()).toEqual(['a', 'b']);
      expect((await store.listAllTenants()).filter((t) => t.org_id === org)).toHaveLength(2);
      await store.deleteOrganization(org);
      expect(await store.getOrganization(org)).toBeUndefined();
    });

    it('replaces and deletes a tenant only at the revision expected', async () => {
      const store = make();
      const org = unique('org');
      await store.putTenantIfAbsent(tenant(org, 'a'));
      expect(await store.replaceTenant({ ...tenant(org, 'a', 2), status: 'marked_deleted' }, 5)).toBe(false);
      expect(await store.replaceTenant({ ...tenant(org, 'a', 2), status: 'marked_deleted' }, 1)).toBe(true);
      expect(await store.getTenant(org, 'a')).toMatchObject({ status: 'marked_deleted', revision: 2 });
      expect(await store.deleteTenant(org, 'a', 1)).toBe(false);
      expect(await store.deleteTenant(org, 'a', 2)).toBe(true);
      expect(await store.getTenant(org, 'a')).toBeUndefined();
      expect(await store.deleteTenant(org, 'a', 2)).toBe(false);
    });

    it('gives a schema suffix to one tenant at a time, which keeps it until it releases it', async () => {
      const store = make();
      const suffix = unique('a_b_c');
      const [first, second] = [`${suffix}x:b_c`, `${suffix}x_b:c`];
      const claims = await Promise.all([
        store.claimSchemaSuffix(suffix, first),
        store.claimSchemaSuffix(suffix, second),
      ]);
      expect(claims.filter((holder) => holder === undefined)).toHaveLength(1);
      const [holder, other] = claims[0] === undefined ? [first, second] : [second, first];
      expect(claims).toContain(holder);
      expect(await store.claimSchemaSuffix(suffix, holder)).toBeUndefined();
      expect(await store.claimSchemaSuffix(suffix, other)).toBe(holder);
      // Releasing another tenant's claim changes nothing; its holder's release frees it.
      await store.releaseSchemaSuffix(suffix, other);
      expect(await store.claimSchemaSuffix(suffix, other)).toBe(holder);
      await store.releaseSchemaSuffix(suffix, holder);
      expect(await store.claimSchemaSuffix(suffix, other)).toBeUndefined();
      // A claim is taken over from the tenant named as replaced, and only from it.
      expect(await store.claimSchemaSuffix(suffix, holder, 'nobody')).toBe(other);
      expect(await store.claimSchemaSuffix(suffix, holder, other)).toBeUndefined();
      expect(await store.claimSchemaSuffix(suffix, other)).toBe(holder);
    });

    it('keeps tiers and registry rows per tenant', async () => {
      const store = make();
      const full = `${unique('org')}:t`;
      await store.putTier({ tenant_full_id: full, tier: 'pro', updated_at: 1 });
      expect(await store.getTier(full)).toEqual({ tenant_full_id: full, tier: 'pro', updated_at: 1 });
      await store.deleteTier(full);
      expect(await store.getTier(full)).toBeUndefined();
      const row = (schema: string) => ({
        tenant_full_id: full,
        schema_name: schema,
        base_schema: 'wiki',
        definition_hash: 'h',
        kind: 'auxiliary' as const,
        registered_at: 1,
        migration_refusal: null,
      });
      await store.putRegistryRow(row('wiki_a'));
      await store.putRegistryRow(row('code_a'));
      await store.putRegistryRow({ ...row('wiki_a'), definition_hash: 'h2' });
      expect((await store.listRegistryRows(full)).map((r) => [r.schema_name, r.definition_hash])).toEqual([
        ['code_a', 'h'],
        ['wiki_a', 'h2'],
      ]);
      expect((await store.listAllRegistryRows()).filter((r) => r.tenant_full_id === full)).toHaveLength(2);
      await store.deleteRegistryRow(full, 'code_a');
      expect((await store.listRegistryRows(full)).map((r) => r.schema_name)).toEqual(['wiki_a']);
    });
  });
}
