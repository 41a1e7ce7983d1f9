import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from '@lancedb/lancedb';
import { searchBackendContract } from '@tessera/testing/contracts';
import { describe, expect, it } from 'vitest';
import { LanceSearchBackend, lanceConnection, SchemaCatalog } from '../src/index';

const shipped = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas'));

describe('LanceSearchBackend', () => {
  it('deploys, lists and drops tenant schemas as tables', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lance-'));
    const backend = new LanceSearchBackend(lanceConnection(dir));
    await backend.deploySchema('wiki_acme_acme', shipped.get('wiki')!);
    await backend.deploySchema('wiki_acme_acme', shipped.get('wiki')!);
    await backend.deploySchema('code_acme_acme', shipped.get('code')!);
    expect(await backend.listSchemas()).toEqual(['code_acme_acme', 'wiki_acme_acme']);

    const table = await (await connect(dir)).openTable('wiki_acme_acme');
    const schema = await table.schema();
    expect(schema.fields.map((f) => f.name)).toEqual(shipped.get('wiki')!.document.fields.map((f) => f.name));
    // document_id is the non-nullable, unenforced primary key that upserts dedupe on.
    const key = schema.fields.find((f) => f.name === 'document_id')!;
    expect(key.nullable).toBe(false);
    expect([...key.metadata.keys()]).toContain('lance-schema:unenforced-primary-key:position');

    await backend.dropSchema('wiki_acme_acme');
    await backend.dropSchema('wiki_acme_acme');
    expect(await backend.listSchemas()).toEqual(['code_acme_acme']);
    await backend.ping();
  });

  it('lists more tables than one page holds', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lance-'));
    const backend = new LanceSearchBackend(lanceConnection(dir));
    const names = Array.from({ length: 1005 }, (_, i) => `wiki_t${String(i).padStart(4, '0')}_t`);
    const db = await connect(dir);
    for (const name of names)
      await db.createEmptyTable(name, (await import('../src/arrow')).arrowSchema(shipped.get('wiki')!));
    expect(await backend.listSchemas()).toEqual(names);
  }, 120_000);
});

const contractDir = mkdtempSync(path.join(tmpdir(), 'backend-contract-'));
searchBackendContract('LanceSearchBackend', () => new LanceSearchBackend(lanceConnection(contractDir)));
