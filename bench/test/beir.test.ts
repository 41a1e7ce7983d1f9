import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { HashedTokenEncoder } from '@tessera/encoders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_SHARE, datasetsRoot, discoverCollections, loadCollection, splitOf } from '../eval/beir';
import { evaluateCollection, formatFigures, percentile } from '../eval/collection';

const repoRoot = path.resolve(import.meta.dirname, '../..');
let root: string;

/** A small collection in BEIR's layout: three documents, three queries of which two are judged. */
function writeCollection(dir: string, graded: boolean): void {
  mkdirSync(path.join(dir, 'qrels'), { recursive: true });
  const corpus = [
    { _id: 'd1', title: 'Supersonic wings', text: 'Pressure on a swept wing at supersonic speed.' },
    { _id: 'd2', title: 'Library catalogues', text: 'Indexing books in a library catalogue.' },
    { _id: 'd3', title: '', text: 'Heat transfer in a boundary layer.' },
  ];
  writeFileSync(path.join(dir, 'corpus.jsonl.gz'), gzipSync(corpus.map((d) => JSON.stringify(d)).join('\n')));
  writeFileSync(
    path.join(dir, 'queries.jsonl'),
    [
      '{"_id": "1", "text": "swept wing pressure"}',
      '{"_id": "2", "text": "library catalogue"}',
      '{"_id": "3", "text": "x"}',
    ]
      .join('\n')
      .concat('\n'),
  );
  writeFileSync(
    path.join(dir, 'qrels', 'test.tsv'),
    `query-id\tcorpus-id\tscore\n1\td1\t${graded ? 3 : 1}\n1\td3\t0\n2\td2\t1\n`,
  );
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tessera-beir-test-'));
  writeCollection(path.join(root, 'graded'), true);
  writeCollection(path.join(root, 'binary'), false);
  mkdirSync(path.join(root, 'not-a-collection'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('splitOf', () => {
  it('is a fixed function of collection and query id, putting about DEV_SHARE of queries in dev', () => {
    expect(splitOf('cranfield', '1')).toBe(splitOf('cranfield', '1'));
    const splits = Array.from({ length: 2000 }, (_, i) => splitOf('c', String(i)));
    const dev = splits.filter((s) => s === 'dev').length / splits.length;
    expect(Math.abs(dev - DEV_SHARE)).toBeLessThan(0.05);
    // The collection name is part of the key: another collection splits its ids differently.
    const other = Array.from({ length: 200 }, (_, i) => splitOf('d', String(i)));
    expect(other).not.toEqual(splits.slice(0, 200));
  });
});

describe('BEIR collections', () => {
  it('discovers the folders that hold a corpus, queries and test qrels', () => {
    expect(discoverCollections(root)).toEqual(['binary', 'graded']);
    expect(discoverCollections(path.join(root, 'missing'))).toEqual([]);
  });

  it('keeps only judged queries, with their grades and split, and tells graded from binary', () => {
    const graded = loadCollection(path.join(root, 'graded'));
    expect(graded.documents.map((d) => d.id)).toEqual(['d1', 'd2', 'd3']);
    expect(graded.queries.map((q) => q.id)).toEqual(['1', '2']);
    expect([...graded.queries[0]!.relevance]).toEqual([
      ['d1', 3],
      ['d3', 0],
    ]);
    expect(graded.queries[0]!.split).toBe(splitOf('graded', '1'));
    expect(graded.graded).toBe(true);
    expect(loadCollection(path.join(root, 'binary')).graded).toBe(false);
  });

  it('finds shared/datasets beside the repository or an ancestor, unless a path is given', () => {
    expect(datasetsRoot('/somewhere/repo', '/data/beir')).toBe('/data/beir');
    const nested = path.join(root, 'a', 'b', 'repo');
    mkdirSync(path.join(root, 'a', 'shared', 'datasets'), { recursive: true });
    expect(datasetsRoot(nested)).toBe(path.join(root, 'a', 'shared', 'datasets'));
  });
});

describe('evaluateCollection (integration: LanceDB)', () => {
  it('feeds the corpus into a document table and scores every strategy per split', async () => {
    const collection = loadCollection(path.join(root, 'graded'));
    const run = await evaluateCollection(collection, {
      repoRoot,
      encoder: new HashedTokenEncoder(),
      strategies: ['bm25_only', 'float_float', 'hybrid_bm25_binary'],
      splits: ['dev', 'test'],
    });
    expect(run).toMatchObject({ collection: 'graded', encoder: 'embedded:hashed-token-128', documents: 3 });
    const bm25 = run.figures.filter((f) => f.strategy === 'bm25_only');
    expect(bm25.reduce((sum, f) => sum + f.queries, 0)).toBe(2);
    // Each judged query names its one relevant document in its own words: found first by every strategy.
    for (const figures of run.figures.filter((f) => f.queries > 0)) {
      expect(figures).toMatchObject({ ndcg10: 1, mrr10: 1, recall100: 1 });
      expect(figures.p95).toBeGreaterThanOrEqual(figures.p50);
    }
    expect(formatFigures(run.figures).split('\n')[1]).toMatch(/^graded\s+(dev|test)\s+bm25_only\s/);
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 95)).toBe(5);
    expect(percentile([], 50)).toBeNaN();
  });
});
