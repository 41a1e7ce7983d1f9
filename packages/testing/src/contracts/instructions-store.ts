/** The contract of `InstructionsStore`: one record a tenant, each version written once, conditionally. */
import type { InstructionsRecord, InstructionsStore } from '@tessera/memories';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

const record = (tenant_id: string, version: number, text = `text ${version}`): InstructionsRecord => ({
  tenant_id,
  text,
  version,
  updated_at: 1_700_000_000_000 + version,
});

export function instructionsStoreContract(label: string, make: () => InstructionsStore): void {
  describe(`${label} (InstructionsStore contract)`, () => {
    it('has no record of a tenant never written', async () => {
      expect(await make().get(`${unique('org')}:t`)).toBeUndefined();
    });

    it('writes each version only over the one before', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      expect(await store.put(record(tenant, 2))).toBe(false);
      expect(await store.put(record(tenant, 1, 'Answer in French. “Ünïcode” kept.'))).toBe(true);
      expect(await store.get(tenant)).toEqual(record(tenant, 1, 'Answer in French. “Ünïcode” kept.'));
      expect(await store.put(record(tenant, 1, 'again'))).toBe(false);
      expect(await store.put(record(tenant, 3))).toBe(false);
      expect(await store.put(record(tenant, 2, ''))).toBe(true);
      expect(await store.get(tenant)).toEqual(record(tenant, 2, ''));
    });

    it('lets exactly one of concurrent writers of a version win', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      await store.put(record(tenant, 1));
      const won = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.put(record(tenant, 2, `writer ${i}`))),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await store.get(tenant))?.version).toBe(2);
    });

    it("purges a tenant's record, and only that tenant's", async () => {
      const store = make();
      const gone = `${unique('org')}:gone`;
      const kept = `${unique('org')}:kept`;
      await store.put(record(gone, 1));
      await store.put(record(kept, 1));
      expect(await store.purgeTenant(gone)).toBe(true);
      expect(await store.get(gone)).toBeUndefined();
      expect(await store.get(kept)).toEqual(record(kept, 1));
      expect(await store.purgeTenant(gone)).toBe(false);
      expect(await store.put(record(gone, 1))).toBe(true);
    });
  });
}
