/**
 * The contract of `ContentIndex`: writes keyed on `document_id`, source replacement, field patches, reads,
 * and the scoring phases' orders (not their exact values, which differ for BM25 between implementations).
 */

import type { ContentIndex, DocumentRow } from '@tessera/search';
import { floatMaxSim, packSignBits, type SchemaTemplate, type SearchBackend } from '@tessera/search';
import { describe, expect, it } from 'vitest';
import { schemaCatalog } from '../catalogs';
import { unique } from './support';

export interface ContentIndexSubject {
  index: ContentIndex;
  /** The backend deploying the schemas the index writes to. */
  backend: SearchBackend;
  /** An index and backend over the same data, as another process has them. */
  other?(): { index: ContentIndex; backend: SearchBackend };
}

const template: SchemaTemplate = schemaCatalog.get('document_text')!;

/** Deterministic unit-length token vectors. */
function vectors(tokens: number, seed: number): Float32Array {
  let state = seed;
  const out = Float32Array.from({ length: tokens * 128 }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
  for (let t = 0; t < tokens; t++) {
    const token = out.subarray(t * 128, (t + 1) * 128);
    const norm = Math.hypot(...token);
    token.forEach((v, i) => {
      token[i] = v / norm;
    });
  }
  return out;
}

const row = (source: string, n: number, text = `${source} part ${n}`, seed = n + 1): DocumentRow => {
  const values = vectors(1 + (n % 3), seed);
  return {
    document_id: `${source}:${n}`,
    source_doc_id: source,
    text,
    ingested_at: 1000 + n,
    embedding: { tokens: 1 + (n % 3), values },
    embedding_binary: { tokens: 1 + (n % 3), values: packSignBits(values) },
  };
};

const query = (seed: number, tokens = 2) => {
  const values = vectors(tokens, seed);
  return { tokens, vectors: values, binary: packSignBits(values) };
};

const list = (value: unknown) => [...((value as Iterable<string> | null) ?? [])];

export function contentIndexContract(label: string, subject: () => ContentIndexSubject): void {
  describe(`${label} (ContentIndex contract)`, () => {
    async function fresh(): Promise<{ index: ContentIndex; schema: string }> {
      const { index, backend } = subject();
      const schema = unique('document_text_contract');
      await backend.deploySchema(schema, template);
      await index.ensureIndexes(schema, template);
      return { index, schema };
    }

    it('reads and writes a schema dropped and deployed again as the new table, in this process and another', async () => {
      const here = subject();
      const there = here.other?.() ?? here;
      const schema = unique('document_text_again');
      const ids = (scored: { id: string }[]) => scored.map((s) => s.id).sort();
      // The same steps each round, so each table's versions are the ones the table before had.
      for (let round = 0; round < 4; round++) {
        const [owner, peer] = round % 2 === 0 ? [here, there] : [there, here];
        await owner.backend.deploySchema(schema, template);
        await owner.index.ensureIndexes(schema, template);
        await peer.index.ensureIndexes(schema, template);
        await owner.index.upsert(schema, template, [row(`r${round}`, 0, `round ${round} okapi`, 40 + round)]);
        await peer.index.upsert(schema, template, [row(`r${round}`, 1, `round ${round} okapi`, 50 + round)]);
        const mine = [`r${round}:0`, `r${round}:1`];
        for (const { index } of [owner, peer]) {
          expect(await index.count(schema)).toBe(2);
          expect(ids(await index.bm25(schema, ['text'], 'okapi', 10))).toEqual(mine);
          expect(ids(await index.binaryMaxSim(schema, query(3), 10))).toEqual(mine);
          expect(ids(await index.floatBinaryMaxSim(schema, query(3), 10))).toEqual(mine);
          expect(ids(await index.floatMaxSim(schema, query(3), 10))).toEqual(mine);
          expect(ids(await index.floatMaxSim(schema, query(3), 10, mine))).toEqual(mine);
        }
        await peer.index.replaceSources(schema, template, [`r${round}`], [row(`r${round}`, 2, 'kept okapi')]);
        const kept = await owner.index.fetch(schema, [`r${round}:2`, `r${round}:0`], ['text']);
        expect(kept.map((r) => r.text)).toEqual(['kept okapi']);
        await owner.backend.dropSchema(schema);
        expect(await peer.index.count(schema)).toBe(0);
      }
    });

    it('refuses writes to a schema not deployed and answers nothing from it', async () => {
      const { index } = subject();
      const schema = unique('document_text_absent');
      await expect(index.upsert(schema, template, [row('a', 0)])).rejects.toThrow(/not deployed/);
      await expect(index.replaceSources(schema, template, ['a'], [row('a', 0)])).rejects.toThrow(
        /not deployed/,
      );
      expect(await index.count(schema)).toBe(0);
      expect(await index.bm25(schema, ['text'], 'part', 10)).toEqual([]);
      expect(await index.binaryMaxSim(schema, query(1), 10)).toEqual([]);
      expect(await index.floatMaxSim(schema, query(1), 10)).toEqual([]);
    });

    it('replaces the documents of every named source in one write and leaves other sources alone', async () => {
      const { index, schema } = await fresh();
      await index.upsert(schema, template, [row('a', 0), row('a', 1), row('a', 2), row('b', 0), row('c', 0)]);
      // a shrinks to one document, b is rewritten, c is not named.
      await index.replaceSources(schema, template, ['a', 'b'], [row('a', 0), row('b', 0), row('b', 1)]);
      expect(await index.count(schema, { sourceDocId: 'a' })).toBe(1);
      expect(await index.count(schema, { sourceDocId: 'b' })).toBe(2);
      expect(await index.count(schema, { sourceDocId: 'c' })).toBe(1);
      // Named sources with no rows left are emptied.
      await index.replaceSources(schema, template, ['a', "it's"], []);
      expect(await index.count(schema, { sourceDocId: 'a' })).toBe(0);
      expect(await index.count(schema)).toBe(3);
    });

    it('upserts by id and removes the documents of an older generation of a source', async () => {
      const { index, schema } = await fresh();
      await index.upsert(schema, template, [row('s', 0), row('s', 1), row('s', 2)]);
      await index.upsert(schema, template, [{ ...row('s', 0, 'rewritten'), ingested_at: 5000 }]);
      expect(await index.count(schema)).toBe(3);
      const [rewritten] = await index.fetch(schema, ['s:0'], ['document_id', 'text']);
      expect(rewritten).toMatchObject({ document_id: 's:0', text: 'rewritten' });
      await index.deleteOlderGeneration(schema, 's', 5000);
      expect(
        (await index.fetch(schema, ['s:0', 's:1', 's:2'], ['document_id'])).map((r) => r.document_id),
      ).toEqual(['s:0']);
      expect(await index.maintain(schema)).toBe(false);
    });

    it('records the encoder of the table’s vectors, which a new table has none of, and samples rows', async () => {
      const { index, schema } = await fresh();
      expect(await index.encoderOf(schema)).toBeUndefined();
      await index.upsert(schema, template, [row('a', 0), row('a', 1)]);
      await index.recordEncoder(schema, 'embedded:test@1');
      expect(await index.encoderOf(schema)).toBe('embedded:test@1');
      // Writes after the record keep it.
      await index.replaceSources(schema, template, ['a'], [row('a', 0)]);
      expect(await index.encoderOf(schema)).toBe('embedded:test@1');
      const sampled = await index.sample(schema, 5, ['document_id', 'text']);
      expect(sampled.map((r) => r.document_id)).toEqual(['a:0']);
      expect(await index.sample(unique('document_text_absent'), 5, ['document_id'])).toEqual([]);
    });

    it('sets the named fields of stored documents, leaving their text and vectors', async () => {
      const { index, schema } = await fresh();
      await index.upsert(schema, template, [row('a', 0), row('a', 1)]);
      const before = await index.floatMaxSim(schema, query(9), 10, ['a:0', 'a:1']);
      await index.patch(
        schema,
        template,
        ['entity_ids'],
        [
          { document_id: 'a:0', entity_ids: ['marie_curie', 'paris'] },
          { document_id: 'missing:0', entity_ids: ['nobody'] },
        ],
      );
      const after = await index.fetch(schema, ['a:0', 'a:1'], ['document_id', 'text', 'entity_ids']);
      const byId = new Map(after.map((r) => [r.document_id as string, r]));
      expect(list(byId.get('a:0')!.entity_ids)).toEqual(['marie_curie', 'paris']);
      expect(byId.get('a:0')!.text).toBe('a part 0');
      expect(list(byId.get('a:1')!.entity_ids)).toEqual([]);
      expect(await index.floatMaxSim(schema, query(9), 10, ['a:0', 'a:1'])).toEqual(before);
      expect(await index.count(schema)).toBe(2);
    });

    it('ranks by BM25 the documents holding the query words, within the ids given', async () => {
      const { index, schema } = await fresh();
      await index.upsert(schema, template, [
        row('t', 0, 'the wombat protocol for wombat keepers'),
        row('t', 1, 'a protocol about nothing else'),
        row('t', 2, 'unrelated words entirely'),
      ]);
      const ranked = await index.bm25(schema, ['text'], 'wombat protocol', 10);
      expect(ranked.map((s) => s.id)).toEqual(['t:0', 't:1']);
      expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
      expect(
        (await index.bm25(schema, ['text'], 'wombat protocol', 10, ['t:1', 't:2'])).map((s) => s.id),
      ).toEqual(['t:1']);
      expect(await index.bm25(schema, ['text'], '  ', 10)).toEqual([]);
    });

    it('ranks a document by its own vectors first in every vector phase, and scores float MaxSim exactly', async () => {
      const { index, schema } = await fresh();
      const rows = Array.from({ length: 12 }, (_, n) => row('v', n));
      await index.upsert(schema, template, rows);
      const own = rows[4]!;
      const mine = {
        tokens: (own.embedding as { tokens: number }).tokens,
        vectors: (own.embedding as { values: Float32Array }).values,
        binary: (own.embedding_binary as { values: Uint8Array }).values,
      };
      const binary = await index.binaryMaxSim(schema, mine, 3);
      expect(binary[0]).toEqual({ id: 'v:4', score: 1 });
      expect(binary).toHaveLength(3);
      expect((await index.floatBinaryMaxSim(schema, mine, 12))[0]!.id).toBe('v:4');
      let targets: string[] = [];
      const floats = await index.floatMaxSim(schema, mine, 5, undefined, (ids) => {
        targets = ids;
      });
      expect(floats[0]!.id).toBe('v:4');
      expect(targets).toContain('v:4');
      const exact = floatMaxSim(mine.vectors, mine.tokens, mine.vectors, 0, mine.tokens);
      expect(floats[0]!.score).toBeCloseTo(exact, 4);
      const restricted = await index.floatMaxSim(schema, mine, 10, ['v:1', 'v:2', 'absent']);
      expect(restricted.map((s) => s.id).sort()).toEqual(['v:1', 'v:2']);
      expect(await index.binaryMaxSim(schema, mine, 10, ['v:7'])).toHaveLength(1);
    });
  });
}
