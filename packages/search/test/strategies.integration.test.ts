import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  LanceContentIndex,
  LanceSearchBackend,
  lanceConnection,
  packSignBits,
  phaseScores,
  phasesOf,
  type RankingStrategy,
  rank,
  SchemaCatalog,
  SECOND_PHASE_WEIGHT,
} from '../src/index';

/**
 * A corpus built by hand so that each strategy has its own known top 3. Every token vector is
 * normalize(w·e0 + Σ s_i e_i) with s = P except `flips` of P's positive dimensions turned negative
 * (P: +1 on dimensions 1-64, -1 on 65-127). The query is the single token normalize(10·e0 + 0.5·P) and
 * the text "alpha". Worked out by hand (float = q·v, binary = 1 - 2h/128, float·bits = q·unpacked bits):
 *
 * | doc     | w     | flips | float | binary | float·bits | text              |
 * |---------|-------|-------|-------|--------|------------|-------------------|
 * | F       | 30    | 64    | 0.814 | 0.000  | 0.871      |                   |
 * | G       | 8     | 20    | 0.778 | 0.688  | 2.787      |                   |
 * | U       | 12    | 40    | 0.759 | 0.375  | 1.916      | alpha ×3          |
 * | Bn      | 0.001 | 0     | 0.491 | 1.000  | 3.658      |                   |
 * | T       | 1     | 25    | 0.374 | 0.609  | 2.570      | alpha ×1          |
 * | 120 × f | 1     | 30    | 0.335 | 0.531  | 2.352      |                   |
 * | V       | -1    | 14    | 0.304 | 0.766  | 2.178      | alpha ×2          |
 *
 * With 127 documents, a first phase's top 100 leaves out its 27 worst, which is what tells the two-phase
 * strategies apart from their single-phase relatives.
 */
const DIM = 128;

function tokenVector(w: number, flips: number): Float32Array {
  const v = new Float32Array(DIM);
  v[0] = w;
  for (let i = 1; i < DIM; i++) v[i] = i <= 64 ? (i <= flips ? -1 : 1) : -1;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function queryVector(): Float32Array {
  const v = new Float32Array(DIM);
  v[0] = 10;
  for (let i = 1; i < DIM; i++) v[i] = i <= 64 ? 0.5 : -0.5;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const docs: { id: string; w: number; flips: number; text: string }[] = [
  { id: 'F', w: 30, flips: 64, text: 'omega omega omega omega' },
  { id: 'G', w: 8, flips: 20, text: 'omega omega omega omega' },
  { id: 'U', w: 12, flips: 40, text: 'alpha alpha alpha omega' },
  { id: 'Bn', w: 0.001, flips: 0, text: 'omega omega omega omega' },
  { id: 'T', w: 1, flips: 25, text: 'alpha omega omega omega' },
  { id: 'V', w: -1, flips: 14, text: 'alpha alpha omega omega' },
  ...Array.from({ length: 120 }, (_, i) => ({
    id: `f${String(i).padStart(3, '0')}`,
    w: 1,
    flips: 30,
    text: 'omega omega omega omega',
  })),
];

const expected: Record<RankingStrategy, string[]> = {
  bm25_only: ['U', 'V', 'T'],
  float_float: ['F', 'G', 'U'],
  binary_binary: ['Bn', 'V', 'G'],
  float_binary: ['Bn', 'G', 'T'],
  phased: ['G', 'Bn', 'T'],
  hybrid_float_bm25: ['U', 'T', 'F'],
  hybrid_binary_bm25: ['V', 'T', 'Bn'],
  hybrid_bm25_float: ['U', 'T', 'V'],
  hybrid_bm25_binary: ['V', 'T', 'U'],
};

const catalog = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas'));
const template = catalog.get('document_text')!;
let index: LanceContentIndex;
/** The same table read through band candidates, as tables above the exact-scan limit are. */
let banded: LanceContentIndex;
const schema = 'document_text_test_test';

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'strategies-'));
  await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
  index = new LanceContentIndex(lanceConnection(dir));
  await index.ensureIndexes(schema, template);
  await index.upsert(
    schema,
    template,
    docs.map((doc) => {
      const vector = tokenVector(doc.w, doc.flips);
      return {
        document_id: doc.id,
        source_doc_id: `src-${doc.id}`,
        text: doc.text,
        embedding: { tokens: 1, values: vector },
        embedding_binary: { tokens: 1, values: packSignBits(vector) },
      };
    }),
  );
  await index.optimize(schema);
  banded = new LanceContentIndex(lanceConnection(dir), { exactScanLimit: 10, floatRerankLimit: 150 });
});

const query = () => {
  const vector = queryVector();
  return { text: 'alpha', vectors: { tokens: 1, vectors: vector, binary: packSignBits(vector) } };
};

describe('ranking strategies', () => {
  it('every strategy has its own expected order on this corpus', () => {
    const orders = Object.values(expected).map((order) => order.join(','));
    expect(new Set(orders).size).toBe(orders.length);
  });

  // The hand-computed orders are the second phase's own (weight 1); the shipped weights are tested below.
  it.each(Object.entries(expected))('%s ranks the hand-computed top 3', async (strategy, order) => {
    const results = await rank(
      { index, schema, textFields: ['title', 'text'] },
      strategy as RankingStrategy,
      query(),
      3,
      1,
    );
    expect(results.map((r) => r.id)).toEqual(order);
  });

  it.each(['phased', 'hybrid_float_bm25', 'hybrid_binary_bm25', 'hybrid_bm25_float', 'hybrid_bm25_binary'])(
    '%s orders the first phase’s top by both phases’ normalized scores at its shipped weight',
    async (name) => {
      const strategy = name as RankingStrategy;
      const target = { index, schema, textFields: ['title', 'text'] };
      const { first, second } = await phaseScores(target, strategy, query(), 100);
      const weight = SECOND_PHASE_WEIGHT[strategy];
      const [firstPhase, secondPhase] = phasesOf(strategy);
      const norm = (phase: string, scores: Map<string, number>) => {
        const values = first.slice(0, 100).flatMap((s) => (scores.has(s.id) ? [scores.get(s.id)!] : []));
        const max = Math.max(...values);
        const min = phase === 'text' ? 0 : Math.min(...values);
        return (id: string) => (scores.has(id) ? (scores.get(id)! - min) / (max - min) : 0);
      };
      const f = norm(firstPhase, new Map(first.map((s) => [s.id, s.score])));
      const g = norm(secondPhase!, new Map(second.map((s) => [s.id, s.score])));
      const expectedOrder = first
        .slice(0, 100)
        .map((s, i) => ({ id: s.id, i, score: weight * g(s.id) + (1 - weight) * f(s.id) }))
        .sort((a, b) => b.score - a.score || a.i - b.i)
        .slice(0, 5);
      const results = await rank(target, strategy, query(), 5);
      expect(results.map((r) => r.id)).toEqual(expectedOrder.map((e) => e.id));
      for (const [i, r] of results.entries()) expect(r.score).toBeCloseTo(expectedOrder[i]!.score, 9);
    },
  );

  it.each(Object.entries(expected))(
    '%s ranks the same top 3 through band candidates',
    async (strategy, order) => {
      const target = { index: banded, schema, textFields: ['title', 'text'] };
      const results = await rank(target, strategy as RankingStrategy, query(), 3, 1);
      expect(results.map((r) => r.id)).toEqual(order);
    },
  );

  it('computes the scores of the table', async () => {
    const target = { index, schema, textFields: ['title', 'text'] };
    const byId = async (strategy: RankingStrategy) =>
      Object.fromEntries((await rank(target, strategy, query(), 200)).map((r) => [r.id, r.score]));
    const float = await byId('float_float');
    const binary = await byId('binary_binary');
    const floatBits = await byId('float_binary');
    const q = Math.sqrt(131.75);
    // q·v = (10w + 0.5(127 - 2·flips)) / (|q| |v|)
    expect(float.F).toBeCloseTo((300 - 0.5) / (q * Math.sqrt(900 + 127)), 5);
    expect(float.Bn).toBeCloseTo((0.01 + 63.5) / (q * Math.sqrt(0.001 ** 2 + 127)), 5);
    expect(binary.G).toBeCloseTo(1 - 40 / 128, 6);
    expect(binary.V).toBeCloseTo(1 - 30 / 128, 6);
    expect(binary.F).toBeCloseTo(0, 6);
    // q·bits = (10·[w > 0] + 0.5(64 - flips)) / |q|
    expect(floatBits.Bn).toBeCloseTo(42 / q, 5);
    expect(floatBits.F).toBeCloseTo(10 / q, 5);
  });

  it('answers nothing for a query without tokens or text, and for an undeployed schema', async () => {
    const empty = {
      text: '',
      vectors: { tokens: 0, vectors: new Float32Array(0), binary: new Uint8Array(0) },
    };
    for (const strategy of Object.keys(expected) as RankingStrategy[]) {
      expect(await rank({ index, schema, textFields: ['text'] }, strategy, empty, 10)).toEqual([]);
      expect(
        await rank({ index, schema: 'absent_schema', textFields: ['text'] }, strategy, query(), 10),
      ).toEqual([]);
    }
  });
});
