import { describe, expect, it } from 'vitest';
import { HashedDenseEncoder } from '../src/index';
import { dot } from './support';

describe('HashedDenseEncoder', () => {
  it('names itself and has 768 dimensions', () => {
    const encoder = new HashedDenseEncoder();
    expect([encoder.name, encoder.dim]).toEqual(['embedded:hashed-bow-768', 768]);
  });

  it('returns unit-length vectors, the same from every instance', async () => {
    const texts = ['Tenant search index rebuilt nightly', 'parseTenantId validates the tenant id'];
    const a = await new HashedDenseEncoder().embed(texts, 'document');
    const b = await new HashedDenseEncoder().embed(texts, 'query');
    expect(b).toEqual(a);
    for (const vector of a) {
      expect(vector).toHaveLength(768);
      expect(Math.sqrt(dot(vector, vector))).toBeCloseTo(1, 5);
    }
  });

  it('places texts sharing words closer than unrelated texts', async () => {
    const [query, similar, unrelated] = await new HashedDenseEncoder().embed(
      [
        'rebuild the tenant search index',
        'The search index of each tenant is rebuilt when its schema changes.',
        'Bananas ripen faster next to apples in a warm kitchen.',
      ],
      'document',
    );
    expect(dot(query!, similar!)).toBeGreaterThan(0.4);
    expect(dot(query!, similar!)).toBeGreaterThan(dot(query!, unrelated!) + 0.3);
  });

  it('sums word vectors weighted by 1 + ln(tf), then normalizes', async () => {
    const encoder = new HashedDenseEncoder();
    const [thrice, search, index] = await encoder.embed(
      ['search search search index', 'search', 'index'],
      'document',
    );
    const weight = 1 + Math.log(3);
    const expected = search!.map((value, i) => weight * value + index![i]!);
    const norm = Math.sqrt(dot(expected, expected));
    for (let i = 0; i < 768; i++) expect(thrice![i]).toBeCloseTo(expected[i]! / norm, 5);
  });

  it('gives the zero vector for a text without words', async () => {
    const [empty] = await new HashedDenseEncoder().embed(['the of'], 'query');
    expect(empty!.every((value) => value === 0)).toBe(true);
  });
});
