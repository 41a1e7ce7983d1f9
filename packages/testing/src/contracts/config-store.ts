/** The contract of `ConfigStore`: versions appended once each, read newest first, per tenant and kind. */
import type { ConfigStore, ConfigVersion } from '@tessera/config';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

const entry = (version: number, value: Record<string, unknown>, extra: Partial<ConfigVersion> = {}) => ({
  version,
  value,
  created_at: 1_700_000_000_000 + version,
  created_by: 'alice',
  ...extra,
});

export function configStoreContract(label: string, make: () => ConfigStore): void {
  describe(`${label} (ConfigStore contract)`, () => {
    it('has no version of a record never written', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      expect(await store.latest(tenant, 'llm')).toBeUndefined();
      expect(await store.get(tenant, 'llm', 1)).toBeUndefined();
      expect(await store.history(tenant, 'llm', 10)).toEqual([]);
    });

    it('appends each version once and keeps every one, values as written', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      const value = {
        model: 'openai/m',
        api_base: null,
        temperature: 0.1,
        nested: { list: [1, 'two', null] },
      };
      expect(await store.append(tenant, 'llm', entry(1, value))).toBe(true);
      expect(await store.append(tenant, 'llm', entry(1, { model: 'other' }))).toBe(false);
      expect(await store.append(tenant, 'llm', entry(2, { model: 'b' }))).toBe(true);
      expect(await store.append(tenant, 'llm', entry(3, value, { rolled_back_from: 1 }))).toBe(true);
      expect(await store.latest(tenant, 'llm')).toEqual(entry(3, value, { rolled_back_from: 1 }));
      expect(await store.get(tenant, 'llm', 1)).toEqual(entry(1, value));
      expect((await store.history(tenant, 'llm', 10)).map((e) => e.version)).toEqual([3, 2, 1]);
      expect((await store.history(tenant, 'llm', 2)).map((e) => e.version)).toEqual([3, 2]);
    });

    it('keeps kinds and tenants apart (llm and llm_teacher too)', async () => {
      const store = make();
      const a = `${unique('org')}:a`;
      const b = `${unique('org')}:b`;
      await store.append(a, 'llm', entry(1, { model: 'a' }));
      await store.append(a, 'llm_teacher', entry(1, { model: 'teacher' }));
      await store.append(a, 'llm_teacher', entry(2, { model: 'teacher2' }));
      await store.append(b, 'llm', entry(1, { model: 'b' }));
      expect((await store.latest(a, 'llm'))?.value).toEqual({ model: 'a' });
      expect((await store.latest(a, 'llm_teacher'))?.version).toBe(2);
      expect(await store.history(a, 'llm', 10)).toHaveLength(1);
      expect((await store.latest(b, 'llm'))?.value).toEqual({ model: 'b' });
    });

    it('orders versions numerically past nine', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      for (let version = 1; version <= 12; version++)
        await store.append(tenant, 'routing', entry(version, {}));
      expect((await store.latest(tenant, 'routing'))?.version).toBe(12);
      expect((await store.history(tenant, 'routing', 3)).map((e) => e.version)).toEqual([12, 11, 10]);
    });

    it('lets exactly one of concurrent writers of a version win', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      const won = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.append(tenant, 'telemetry', entry(1, { writer: i }))),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.history(tenant, 'telemetry', 10)).toHaveLength(1);
    });

    it("purges every record of a tenant, and only that tenant's", async () => {
      const store = make();
      const gone = `${unique('org')}:gone`;
      const kept = `${unique('org')}:kept`;
      await store.append(gone, 'llm', entry(1, {}));
      await store.append(gone, 'llm', entry(2, {}));
      await store.append(gone, 'backend', entry(1, {}));
      await store.append(kept, 'llm', entry(1, {}));
      expect(await store.purgeTenant(gone)).toBe(3);
      expect(await store.latest(gone, 'llm')).toBeUndefined();
      expect(await store.latest(gone, 'backend')).toBeUndefined();
      expect(await store.latest(kept, 'llm')).toBeDefined();
      expect(await store.purgeTenant(gone)).toBe(0);
    });
  });
}
