import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from '@lancedb/lancedb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  arrowSchema,
  LanceContentIndex,
  LanceSearchBackend,
  lanceConnection,
  packSignBits,
  SchemaCatalog,
} from '../src/index';

const DIM = 128;
const template = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas')).get(
  'document_text',
)!;
const schema = 'document_text_reads_test';

/** Deterministic unit-length token vectors. */
function vectors(tokens: number, seed: number): Float32Array {
  let state = seed;
  const out = Float32Array.from({ length: tokens * DIM }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
  for (let t = 0; t < tokens; t++) {
    const row = out.subarray(t * DIM, (t + 1) * DIM);
    const norm = Math.hypot(...row);
    row.forEach((v, i) => {
      row[i] = v / norm;
    });
  }
  return out;
}

/**
 * A deployed table of `count` documents named `<prefix><n>`, written by the same steps every time; `legacy`
 * creates it as deploys did before tables carried an incarnation id.
 */
async function table(dir: string, prefix: string, count: number, legacy = false): Promise<void> {
  if (legacy) {
    const created = await (await connect(dir)).createEmptyTable(schema, arrowSchema(template), {
      mode: 'create',
    });
    await created.setUnenforcedPrimaryKey('document_id');
  } else await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
  const index = new LanceContentIndex(lanceConnection(dir));
  await index.ensureIndexes(schema, template);
  await index.upsert(
    schema,
    template,
    Array.from({ length: count }, (_, n) => {
      const values = vectors(1 + (n % 5), n + 1);
      return {
        document_id: `${prefix}${n}`,
        source_doc_id: 'src',
        text: `document ${n}`,
        embedding: { tokens: 1 + (n % 5), values },
        embedding_binary: { tokens: 1 + (n % 5), values: packSignBits(values) },
      };
    }),
  );
}

const query = () => {
  const values = vectors(3, 999);
  return { tokens: 3, vectors: values, binary: packSignBits(values) };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('float MaxSim reads of float vectors', () => {
  it('reads by row id once the codes are loaded, with the scores of the filtered read', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'float-reads-'));
    await table(dir, 'd', 300);
    const ids = ['d3', 'd17', 'd250', 'd99', 'absent'];
    // A fresh index has no codes loaded: the float vectors come through the document_id filter.
    const filtered = await new LanceContentIndex(lanceConnection(dir)).floatMaxSim(schema, query(), 10, ids);
    expect(filtered.map((s) => s.id).sort()).toEqual(['d17', 'd250', 'd3', 'd99']);

    const index = new LanceContentIndex(lanceConnection(dir));
    await index.binaryMaxSim(schema, query(), 1); // loads the codes
    const handle = (await index.table(schema))!;
    const take = vi.spyOn(Object.getPrototypeOf(handle), 'takeRowIds');
    // An id the codes do not know leaves the read to the filter.
    expect(await index.floatMaxSim(schema, query(), 10, ids)).toEqual(filtered);
    expect(take).not.toHaveBeenCalled();
    const known = ids.slice(0, 4);
    expect(await index.floatMaxSim(schema, query(), 10, known)).toEqual(filtered);
    expect(take).toHaveBeenCalledTimes(1);
    // The first phase reads its rerank documents by row id too.
    const first = await index.floatMaxSim(schema, query(), 300);
    expect(take).toHaveBeenCalledTimes(2);
    expect(first).toHaveLength(128);
    const targets = await index.floatTargets(schema, query());
    expect(new Set(first.map((s) => s.id))).toEqual(new Set(targets));
  });

  it('reads a table dropped and deployed again at the same version through its own codes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'float-reads-'));
    await table(dir, 'a', 50);
    const index = new LanceContentIndex(lanceConnection(dir));
    expect((await index.floatMaxSim(schema, query(), 5))[0]!.id).toMatch(/^a/);
    const version = await (await index.table(schema))!.version();
    await new LanceSearchBackend(lanceConnection(dir)).dropSchema(schema);
    await table(dir, 'b', 50);
    expect(await (await index.table(schema))!.version()).toBe(version);
    const take = vi.spyOn(Object.getPrototypeOf((await index.table(schema))!), 'takeRowIds');
    // The codes of the old table are not used: its documents are unknown, nothing is read for them.
    expect(await index.floatMaxSim(schema, query(), 5, ['a1', 'a2', 'a3'])).toEqual([]);
    expect(take).not.toHaveBeenCalled();
    const fresh = await index.floatMaxSim(schema, query(), 5);
    expect(fresh[0]!.id).toMatch(/^b/);
    expect(take).toHaveBeenCalled();
  });

  it('falls back to the filter when a table was replaced by one at the same version', async () => {
    // Tables made before incarnation ids were stamped cannot be told apart but by the rows read.
    const dir = mkdtempSync(path.join(tmpdir(), 'float-reads-'));
    await table(dir, 'a', 50, true);
    const index = new LanceContentIndex(lanceConnection(dir));
    const before = await index.floatMaxSim(schema, query(), 5);
    expect(before[0]!.id).toMatch(/^a/);
    const version = await (await index.table(schema))!.version();
    await new LanceSearchBackend(lanceConnection(dir)).dropSchema(schema);
    await table(dir, 'b', 50, true);
    expect(await (await index.table(schema))!.version()).toBe(version);
    const fresh = await new LanceContentIndex(lanceConnection(dir)).floatMaxSim(schema, query(), 5, [
      'b1',
      'b2',
      'b3',
    ]);
    // The stale codes name `a` documents; the rows their row ids lead to are `b` documents.
    const take = vi.spyOn(Object.getPrototypeOf((await index.table(schema))!), 'takeRowIds');
    const stale = await index.floatMaxSim(schema, query(), 5, ['a1', 'a2', 'a3']);
    expect(take).toHaveBeenCalledTimes(1);
    expect(stale).toEqual([]);
    expect(await index.floatMaxSim(schema, query(), 5, ['b1', 'b2', 'b3'])).toEqual(fresh);
  });
});
