import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { contentIndexContract } from '@tessera/testing/contracts';
import { describe, expect, it } from 'vitest';
import {
  LanceContentIndex,
  LanceDatabase,
  LanceSearchBackend,
  lanceConnection,
  packSignBits,
  SchemaCatalog,
} from '../src/index';

const template = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas')).get(
  'document_text',
)!;
const schema = 'document_text_replace_test';

const row = (source: string, n: number) => {
  const values = Float32Array.from({ length: 128 }, (_, i) => ((i * 7 + n) % 11) - 5);
  return {
    document_id: `${source}:${n}`,
    source_doc_id: source,
    text: `${source} part ${n}`,
    embedding: { tokens: 1, values },
    embedding_binary: { tokens: 1, values: packSignBits(values) },
  };
};

/** A content index in a new directory, the test schema deployed and indexed. */
async function freshIndex(): Promise<LanceContentIndex> {
  const dir = mkdtempSync(path.join(tmpdir(), 'content-index-'));
  await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
  const index = new LanceContentIndex(lanceConnection(dir));
  await index.ensureIndexes(schema, template);
  return index;
}

const dir = mkdtempSync(path.join(tmpdir(), 'content-contract-'));
contentIndexContract('LanceContentIndex', () => ({
  index: new LanceContentIndex(lanceConnection(dir)),
  backend: new LanceSearchBackend(lanceConnection(dir)),
  // Its own connection, as another process has.
  other: () => {
    const elsewhere = new LanceDatabase(dir);
    return { index: new LanceContentIndex(elsewhere), backend: new LanceSearchBackend(elsewhere) };
  },
}));

describe('LanceContentIndex.ensureIndexes', () => {
  it('creates a new table’s indexes once when jobs of this and another process ask at the same time', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'indexes-'));
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const here = new LanceContentIndex(lanceConnection(dir));
    // Its own connection, as another process has.
    const elsewhere = new LanceContentIndex(new LanceDatabase(dir));
    await Promise.all([
      here.ensureIndexes(schema, template),
      here.ensureIndexes(schema, template),
      elsewhere.ensureIndexes(schema, template),
      elsewhere.ensureIndexes(schema, template),
    ]);
    await here.upsert(schema, template, [row('a', 0)]);
    expect(await here.count(schema)).toBe(1);
  });
});

describe('LanceContentIndex.patch', () => {
  it('sets the named fields of stored documents in one commit, leaving their text and vectors', async () => {
    const index = await freshIndex();
    await index.upsert(schema, template, [row('a', 0), row('a', 1)]);
    const before = await index.fetch(schema, ['a:0', 'a:1'], ['document_id', 'embedding']);

    await index.patch(
      schema,
      template,
      ['entity_ids'],
      [
        { document_id: 'a:0', entity_ids: ['marie_curie', 'paris'] },
        { document_id: 'missing:0', entity_ids: ['nobody'] },
      ],
    );
    const after = await index.fetch(
      schema,
      ['a:0', 'a:1'],
      ['document_id', 'text', 'entity_ids', 'embedding'],
    );
    const byId = new Map(after.map((r) => [r.document_id as string, r]));
    expect([...(byId.get('a:0')!.entity_ids as string[])]).toEqual(['marie_curie', 'paris']);
    expect(byId.get('a:0')!.text).toBe('a part 0');
    expect([...((byId.get('a:1')!.entity_ids as string[] | null) ?? [])]).toEqual([]);
    const vectors = (r: Record<string, unknown>) =>
      JSON.stringify([...(r.embedding as Iterable<Iterable<number>>)].map((token) => [...token]));
    for (const original of before)
      expect(vectors(byId.get(original.document_id as string)!)).toBe(vectors(original));
    expect(await index.count(schema)).toBe(2);
  });
});
