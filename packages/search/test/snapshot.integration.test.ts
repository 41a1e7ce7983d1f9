import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Index, MatchQuery, MultiMatchQuery } from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import {
  type DocumentRow,
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
const schema = 'document_text_snapshot_test';

const WORDS =
  'wombat protocol keeper garden river tree running foxes aircraft wing pressure boundary layer flow heat transfer the a of and'.split(
    ' ',
  );

/** A row whose text and vectors follow from `n`. */
function row(source: string, n: number, text?: string): DocumentRow {
  let state = n * 7919 + source.length;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const words = Array.from({ length: 5 + (next() % 20) }, () => WORDS[next() % WORDS.length]!);
  const tokens = 1 + (n % 3);
  const values = Float32Array.from({ length: tokens * 128 }, () => next() / 2 ** 31 - 1);
  return {
    document_id: `${source}:${n}`,
    source_doc_id: source,
    title: n % 4 === 0 ? null : `${words[0]} ${words[1]}`,
    text: text ?? words.join(' '),
    embedding: { tokens, values },
    embedding_binary: { tokens, values: packSignBits(values) },
  };
}

async function fresh(): Promise<{ dir: string; index: LanceContentIndex }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'snapshot-'));
  await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
  const index = new LanceContentIndex(lanceConnection(dir));
  await index.ensureIndexes(schema, template);
  return { dir, index };
}

const QUERIES = ['wombat protocol', 'running foxes the garden', 'heat heat transfer', 'boundary-layer flow'];

describe('BM25 in memory', () => {
  it('scores as LanceDB’s full-text index scores a fully indexed table, one field or the best of two', async () => {
    const { index } = await fresh();
    await index.upsert(
      schema,
      template,
      Array.from({ length: 60 }, (_, n) => row(`s${n % 7}`, n)),
    );
    const table = (await index.table(schema))!;
    await table.createIndex('title', { config: Index.fts(), replace: true });
    await table.createIndex('text', { config: Index.fts(), replace: true });
    for (const query of QUERIES) {
      for (const fields of [['text'], ['title', 'text']]) {
        const full = fields.length === 1 ? new MatchQuery(query, 'text') : new MultiMatchQuery(query, fields);
        const lance = (await table
          .query()
          .fullTextSearch(full)
          .select(['document_id', '_score'])
          .limit(100)
          .toArray()) as { document_id: string; _score: number }[];
        const ours = await index.bm25(schema, fields, query, 100);
        expect(ours.map((s) => s.id).sort()).toEqual(lance.map((r) => r.document_id).sort());
        const byId = new Map(lance.map((r) => [r.document_id, r._score]));
        for (const { id, score } of ours) expect(score).toBeCloseTo(byId.get(id)!, 4);
      }
    }
  });

  it('gives every document the same score whether the table was written in one commit or in many, before and after optimize', async () => {
    const rows = Array.from({ length: 80 }, (_, n) => row(`s${n % 9}`, n));
    const bulk = await fresh();
    await bulk.index.upsert(schema, template, rows);
    const small = await fresh();
    for (let start = 0; start < rows.length; start += 7)
      await small.index.upsert(schema, template, rows.slice(start, start + 7));
    for (const query of QUERIES) {
      const expected = await bulk.index.bm25(schema, ['title', 'text'], query, 100);
      expect(await small.index.bm25(schema, ['title', 'text'], query, 100)).toEqual(expected);
      await small.index.optimize(schema);
      expect(await small.index.bm25(schema, ['title', 'text'], query, 100)).toEqual(expected);
    }
  });
});

describe('table snapshots', () => {
  it('follow appends, replacements, deletes, patches and compactions by another process as a fresh read does', async () => {
    const { dir, index } = await fresh();
    // Another process writes; this one reads.
    const writer = new LanceContentIndex(new LanceDatabase(dir));
    const check = async () => {
      const reader = new LanceContentIndex(new LanceDatabase(dir));
      const vector = row('q', 3).embedding as { tokens: number; values: Float32Array };
      const query = { tokens: vector.tokens, vectors: vector.values, binary: packSignBits(vector.values) };
      for (const text of QUERIES)
        expect(await index.bm25(schema, ['title', 'text'], text, 50)).toEqual(
          await reader.bm25(schema, ['title', 'text'], text, 50),
        );
      expect(await index.binaryMaxSim(schema, query, 50)).toEqual(
        await reader.binaryMaxSim(schema, query, 50),
      );
      expect(await index.floatMaxSim(schema, query, 20)).toEqual(await reader.floatMaxSim(schema, query, 20));
    };
    await writer.upsert(
      schema,
      template,
      Array.from({ length: 40 }, (_, n) => row(`a${n % 5}`, n)),
    );
    await check();
    for (let step = 0; step < 6; step++) {
      await writer.upsert(
        schema,
        template,
        Array.from({ length: 10 }, (_, n) => row(`b${step}`, 100 + step * 10 + n)),
      );
      await check();
    }
    // A source replaced by fewer, changed documents; another deleted; fields patched.
    await writer.replaceSources(schema, template, ['a1'], [row('a1', 1, 'wombat wombat river')]);
    await writer.replaceSources(schema, template, ['b2'], []);
    await writer.patch(schema, template, ['entity_ids'], [{ document_id: 'a1:1', entity_ids: ['x'] }]);
    await check();
    const snapshot = await index.snapshot(schema, ['title', 'text']);
    expect(snapshot!.liveCount).toBe(await index.count(schema));
    expect(snapshot!.segments.length).toBeLessThan(8);
    await writer.optimize(schema);
    await check();
  });
});
