/** The contract of `ProfileStore`: versions appended once each, the newest read, per tenant and name. */
import type { ProfileStore, StoredProfile } from '@tessera/profiles';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export const storedProfile = (
  tenant: string,
  name: string,
  version = 1,
  extra: Partial<StoredProfile> = {},
) => ({
  tenant_id: tenant,
  profile_name: name,
  type: 'document' as const,
  schema_name: 'document_text',
  embedding_model: 'lightonai/GTE-ModernColBERT-v1',
  embedding_type: 'multi_vector' as const,
  description: `v${version}`,
  strategies: { segmentation: { class: 'ParagraphChunker', params: { max_chars: 2000 } } },
  pipeline_config: {},
  model_specific: null,
  schema_config: { embedding_dim: 128 },
  model_loader: 'colbert' as const,
  process_type: null,
  extra_config: { extensions: ['.md'], nested: { a: [1, null, 'x'] } },
  version,
  created_at: 1_700_000_000_000,
  updated_at: 1_700_000_000_000 + version,
  ...extra,
});

export function profileStoreContract(label: string, make: () => ProfileStore): void {
  describe(`${label} (ProfileStore contract)`, () => {
    it('appends each version once, keeps every one, and reads the newest', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      expect(await store.latest(tenant, 'docs')).toBeUndefined();
      expect(await store.append(storedProfile(tenant, 'docs', 1))).toBe(true);
      expect(await store.append(storedProfile(tenant, 'docs', 1, { description: 'again' }))).toBe(false);
      expect(await store.append(storedProfile(tenant, 'docs', 2))).toBe(true);
      expect(await store.latest(tenant, 'docs')).toEqual(storedProfile(tenant, 'docs', 2));
      expect((await store.versions(tenant, 'docs')).map((p) => p.description)).toEqual(['v2', 'v1']);
    });

    it('lists the newest version of each profile by name, apart per tenant', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      const other = `${unique('org')}:o`;
      for (let version = 1; version <= 11; version++)
        await store.append(storedProfile(tenant, 'b-docs', version));
      await store.append(storedProfile(tenant, 'a_docs', 1));
      // A name that another one starts with stays apart from it.
      await store.append(storedProfile(tenant, 'b', 1));
      await store.append(storedProfile(other, 'a_docs', 1));
      expect((await store.list(tenant)).map((p) => [p.profile_name, p.version])).toEqual([
        ['a_docs', 1],
        ['b', 1],
        ['b-docs', 11],
      ]);
      expect((await store.latest(tenant, 'b'))?.version).toBe(1);
      expect(await store.versions(tenant, 'b')).toHaveLength(1);
      expect(await store.list(other)).toHaveLength(1);
    });

    it('lets exactly one of concurrent writers of a version win', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      const won = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.append(storedProfile(tenant, 'p', 1, { description: `w${i}` })),
        ),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.versions(tenant, 'p')).toHaveLength(1);
    });

    it('removes every version of one profile, or every profile of a tenant', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      await store.append(storedProfile(tenant, 'p', 1));
      await store.append(storedProfile(tenant, 'p', 2));
      await store.append(storedProfile(tenant, 'q', 1));
      expect(await store.remove(tenant, 'p')).toBe(2);
      expect(await store.latest(tenant, 'p')).toBeUndefined();
      expect((await store.list(tenant)).map((p) => p.profile_name)).toEqual(['q']);
      expect(await store.append(storedProfile(tenant, 'p', 1))).toBe(true);
      expect(await store.purgeTenant(tenant)).toBe(2);
      expect(await store.list(tenant)).toEqual([]);
    });
  });
}
