import { describe, expect, it } from 'vitest';
import { ndcg, precision, recall, reciprocalRank, reciprocalRankFusion } from '../src/metrics';

const ranked = ['a', 'b', 'c', 'd', 'e'];

describe('ranking metrics', () => {
  it('reciprocal rank is 1/rank of the first relevant result within k', () => {
    expect(reciprocalRank(ranked, new Set(['c', 'e']), 10)).toBeCloseTo(1 / 3);
    expect(reciprocalRank(ranked, new Set(['e']), 3)).toBe(0);
    expect(reciprocalRank(ranked, new Set(), 10)).toBe(0);
  });

  it('NDCG matches a hand computation', () => {
    // Relevant at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5) = 0.63093 + 0.43068 = 1.06161
    // Ideal: ranks 1 and 2: 1 + 0.63093 = 1.63093 → 0.65092
    expect(ndcg(ranked, new Set(['b', 'd']), 10)).toBeCloseTo(0.650921, 5);
    expect(ndcg(['x', 'y'], new Set(['x']), 10)).toBe(1);
    expect(ndcg(ranked, new Set(['z']), 10)).toBe(0);
  });

  it('NDCG uses graded gains', () => {
    // gains: a=0, b=3, c=1. DCG = 3/log2(3) + 1/log2(4) = 1.89279 + 0.5 = 2.39279
    // ideal: 3, 1 → 3 + 0.63093 = 3.63093 → 0.65900
    expect(
      ndcg(
        ranked,
        new Map([
          ['b', 3],
          ['c', 1],
        ]),
        10,
      ),
    ).toBeCloseTo(0.659004, 5);
  });

  it('recall and precision at k', () => {
    const relevant = new Set(['a', 'c', 'z']);
    expect(recall(ranked, relevant, 10)).toBeCloseTo(2 / 3);
    expect(recall(ranked, relevant, 1)).toBeCloseTo(1 / 3);
    expect(precision(ranked, relevant, 10)).toBeCloseTo(0.2);
    expect(precision(ranked, relevant, 2)).toBeCloseTo(0.5);
  });
});

describe('reciprocalRankFusion', () => {
  it('sums 1/(60 + rank) with rank from 1', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b'],
      ['b', 'c'],
    ]);
    expect(fused.map((f) => f.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61);
    expect(fused[1]!.score).toBeCloseTo(1 / 61);
    expect(fused[2]!.score).toBeCloseTo(1 / 62);
  });
});
