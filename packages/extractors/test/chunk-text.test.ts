import { chunkText } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';

const para = (char: string, length: number) => char.repeat(length);

describe('chunkText', () => {
  it('answers no chunk for empty or blank text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('  \n\n \t \n\n')).toEqual([]);
  });

  it('joins short paragraphs with one blank line, trimming each and dropping empty ones', () => {
    expect(chunkText('  First para.\nsame para  \n\n\n   \n\nSecond.\r\n\r\nThird \n')).toEqual([
      'First para.\nsame para\n\nSecond.\n\nThird',
    ]);
  });

  it('treats a line of spaces or tabs as a blank line', () => {
    expect(chunkText('one\n \t \ntwo')).toEqual(['one\n\ntwo']);
  });

  it('keeps a chunk of exactly 2,000 characters and starts a new one at 2,001', () => {
    // 999 + 2 + 999 = 2,000: fits
    expect(chunkText(`${para('a', 999)}\n\n${para('b', 999)}`)).toEqual([
      `${para('a', 999)}\n\n${para('b', 999)}`,
    ]);
    // 999 + 2 + 1,000 = 2,001: does not
    expect(chunkText(`${para('a', 999)}\n\n${para('b', 1000)}`)).toEqual([para('a', 999), para('b', 1000)]);
  });

  it('keeps a paragraph of exactly 2,000 characters whole and cuts one of 2,001', () => {
    expect(chunkText(para('a', 2000))).toEqual([para('a', 2000)]);
    expect(chunkText(para('a', 2001))).toEqual([para('a', 2000), 'a']);
    expect(chunkText(para('a', 4500))).toEqual([para('a', 2000), para('a', 2000), para('a', 500)]);
  });

  it('closes the open chunk before the pieces of a long paragraph and starts afresh after them', () => {
    const text = ['x', para('L', 2500), 'y', 'z'].join('\n\n');
    expect(chunkText(text)).toEqual(['x', para('L', 2000), para('L', 500), 'y\n\nz']);
  });

  it('packs greedily in order', () => {
    // 600 + 2 + 600 + 2 + 600 = 1,804 fits; + 2 + 600 = 2,406 does not
    const text = ['a', 'b', 'c', 'd', 'e'].map((c) => para(c, 600)).join('\n\n');
    expect(chunkText(text)).toEqual([
      [para('a', 600), para('b', 600), para('c', 600)].join('\n\n'),
      [para('d', 600), para('e', 600)].join('\n\n'),
    ]);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const text = `${para('a', 1999)}😀${para('b', 10)}`;
    const chunks = chunkText(text);
    expect(chunks).toEqual([para('a', 1999), `😀${para('b', 10)}`]);
    expect(chunks.join('')).toBe(text);
  });
});
