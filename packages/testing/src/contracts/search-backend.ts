/** The contract of `SearchBackend`: tenant schemas deployed, listed, migrated and dropped. */
import type { SearchBackend } from '@tessera/search';
import { describe, expect, it } from 'vitest';
import { schemaCatalog } from '../catalogs';
import { unique } from './support';

export function searchBackendContract(label: string, make: () => SearchBackend): void {
  describe(`${label} (SearchBackend contract)`, () => {
    it('deploys a schema once however often asked, lists it, and drops it (absent ones too)', async () => {
      const backend = make();
      const name = unique('wiki_contract');
      await backend.deploySchema(name, schemaCatalog.get('wiki')!);
      await backend.deploySchema(name, schemaCatalog.get('wiki')!);
      expect((await backend.listSchemas()).filter((schema) => schema === name)).toEqual([name]);
      await backend.dropSchema(name);
      await backend.dropSchema(name);
      expect(await backend.listSchemas()).not.toContain(name);
      await backend.ping();
    });

    it('adds new fields, and refuses a changed type or a removed field, changing nothing', async () => {
      const backend = make();
      const name = unique('wiki_migrate');
      const wiki = schemaCatalog.get('wiki')!;
      await backend.deploySchema(name, wiki);
      const grown = {
        ...wiki,
        document: { fields: [...wiki.document.fields, { name: 'extra', type: 'string' }] },
      };
      expect(await backend.migrateSchema(name, grown)).toEqual({ status: 'migrated', added: ['extra'] });
      expect(await backend.migrateSchema(name, grown)).toEqual({ status: 'migrated', added: [] });
      const retyped = {
        ...grown,
        document: {
          fields: grown.document.fields.map((f) => (f.name === 'extra' ? { ...f, type: 'int' } : f)),
        },
      };
      const refused = await backend.migrateSchema(name, retyped);
      expect(refused.status).toBe('refused');
      expect(refused.status === 'refused' && refused.reason).toMatch(/field 'extra' would change type/);
      const shrunk = await backend.migrateSchema(name, wiki);
      expect(shrunk.status === 'refused' && shrunk.reason).toMatch(/field 'extra' would be removed/);
      const absent = unique('wiki_new');
      expect(await backend.migrateSchema(absent, wiki)).toMatchObject({ status: 'migrated' });
      expect(await backend.listSchemas()).toContain(absent);
    });
  });
}
