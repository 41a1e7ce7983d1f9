import { describe, expect, it } from 'vitest';
import { NodeTextIndex } from '../src/text-index';

describe('NodeTextIndex', () => {
  it('ranks by BM25: rarer terms and more occurrences score higher', () => {
    const index = new NodeTextIndex();
    index.set('a', 'tenant schema deploy');
    index.set('b', 'tenant guard tenant guard');
    index.set('c', 'search strategies');
    const ranked = index.search('tenant guard', 10);
    expect(ranked.map((r) => r.id)).toEqual(['b', 'a']);
    expect(index.search('strategies', 10).map((r) => r.id)).toEqual(['c']);
    expect(index.search('nothing here', 10)).toEqual([]);
  });

  it('replaces a node text when it is set again', () => {
    const index = new NodeTextIndex();
    index.set('a', 'old words');
    index.set('a', 'new words');
    expect(index.search('old', 10)).toEqual([]);
    expect(index.search('new', 10).map((r) => r.id)).toEqual(['a']);
  });
});
