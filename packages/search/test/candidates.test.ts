import { describe, expect, it } from 'vitest';
import { bandCandidates, buildBandIndex } from '../src/candidates';

/** Documents of one token each; token d's four words are [d, d, d, d] unless given. */
function corpus(tokens: number[][]) {
  const words = new Uint32Array(tokens.flat());
  const offsets = Int32Array.from({ length: tokens.length / 1 + 1 }, (_, i) => i);
  return { words, offsets };
}

describe('band candidates', () => {
  const docs = [
    [0x11112222, 0x33334444, 0x55556666, 0x77778888],
    [0x11112222, 0x00000000, 0x00000000, 0x00000000], // shares the first word's two bands with doc 0
    [0xaaaaaaaa, 0xbbbbbbbb, 0xcccccccc, 0xdddddddd], // shares nothing with doc 0
    [0x11119999, 0x99999999, 0x99999999, 0x99999999], // shares one band (0x1111) with doc 0
  ];
  const { words, offsets } = corpus(docs);
  const index = buildBandIndex(words, offsets, docs.length);

  it('finds the documents sharing a whole 16-bit band with a query token, most matched first', () => {
    const query = new Uint32Array(docs[0]!);
    expect([...bandCandidates(index, query, 1, 10, 1)].sort()).toEqual([0, 1, 3]);
  });

  it('ranks documents by how many query tokens they match and keeps the limit', () => {
    const query = new Uint32Array([...docs[0]!, ...docs[2]!, 0x11112222, 0, 0, 0]);
    const found = bandCandidates(index, query, 3, 2, 1);
    // doc 0 matches query tokens 0 and 2, doc 1 matches 0 and 2, doc 2 matches 1, doc 3 matches 0 and 2.
    expect(found).toHaveLength(2);
    expect([...found].every((doc) => doc !== 2)).toBe(true);
  });

  it('leaves out bands most documents share once enough candidates are found', () => {
    const common = Array.from({ length: 20 }, (_, i) => [0x12340000 + i, 0x5678 + i * 0x10000, i, i]);
    const rare = [[0x99990000, 0x1, 0x2, 0x3]];
    const all = [...common, ...rare];
    const built = corpus(all);
    const big = buildBandIndex(built.words, built.offsets, all.length);
    // 0x1234 (high half of word 0) is in every common document; 0x0003 (low half of word 3) is rare.
    const query = new Uint32Array([0x1234ffff, 0xffffffff, 0xffffffff, 0x00000003]);
    // With a limit the rare band already fills, the common one is left out.
    expect([...bandCandidates(big, query, 1, 2, 0.2)].sort((a, b) => a - b)).toEqual([3, 20]);
    // With room for more, the common band is read too.
    expect(bandCandidates(big, query, 1, 100, 0.2)).toHaveLength(21);
  });

  it('answers a query the same whatever queries came before it', () => {
    const fresh = () => buildBandIndex(words, offsets, docs.length);
    // 40 query tokens (two words of matched bits a document) repeating the four documents.
    const long = new Uint32Array(Array.from({ length: 40 }, (_, i) => docs[i % 4]!).flat());
    const short = new Uint32Array([...docs[0]!, ...docs[3]!]);
    const used = fresh();
    for (const [query, tokens] of [
      [short, 2],
      [long, 40],
      [short, 2],
      [long, 40],
    ] as const) {
      expect([...bandCandidates(used, query, tokens, 3, 1)]).toEqual([
        ...bandCandidates(fresh(), query, tokens, 3, 1),
      ]);
    }
  });
});
