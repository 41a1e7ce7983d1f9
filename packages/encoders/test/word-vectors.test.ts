import { describe, expect, it } from 'vitest';
import { postProcess, repackGlove, tokenWords } from '../src/glove-repack';
import { packWordVectors, readWordVectors } from '../src/index';

describe('packWordVectors / readWordVectors', () => {
  it('round-trips words, header and int8 rows within one quantization step of each row', () => {
    const words = ['aircraft', 'wing', 'naïve'];
    const vectors = Float32Array.from([0.5, -1, 0.25, 0, 0, 0, 3, 2, -1]);
    const packed = packWordVectors(words, vectors, 3, { source: 'test' });
    const read = readWordVectors(packed);
    expect(read.header).toMatchObject({ words: 3, dim: 3, source: 'test' });
    expect([...read.rows]).toEqual([
      ['aircraft', 0],
      ['wing', 1],
      ['naïve', 2],
    ]);
    for (let row = 0; row < 3; row++) {
      const step = read.scales[row]!;
      for (let i = 0; i < 3; i++) {
        expect(Math.abs(read.values[row * 3 + i]! * step - vectors[row * 3 + i]!)).toBeLessThanOrEqual(
          step / 2,
        );
      }
    }
    // The all-zero row stays zero rather than dividing by a zero scale.
    expect([...read.values.slice(3, 6)]).toEqual([0, 0, 0]);
  });

  it('gives the same bytes and digest for the same input', () => {
    const vectors = Float32Array.from({ length: 20 }, (_, i) => Math.sin(i));
    const a = packWordVectors(['a1', 'b2', 'c3', 'd4'], vectors, 5);
    const b = packWordVectors(['a1', 'b2', 'c3', 'd4'], vectors, 5);
    expect(a.equals(b)).toBe(true);
    expect(readWordVectors(a).sha256).toBe(readWordVectors(b).sha256);
  });

  it('refuses what is not a packed file, or one whose sizes disagree', () => {
    expect(() => readWordVectors(Buffer.from('{"words": []}'), 'x.json')).toThrow(
      /x\.json is not a packed word-vectors file/,
    );
    const packed = packWordVectors(['alpha', 'beta'], new Float32Array(8), 4);
    expect(() => readWordVectors(packed.subarray(0, packed.length - 1))).toThrow(/sizes disagree/);
  });

  it('refuses words the format cannot hold and a matrix of the wrong size', () => {
    expect(() => packWordVectors(['a\nb'], new Float32Array(2), 2)).toThrow(/newline/);
    expect(() => packWordVectors(['ab'], new Float32Array(3), 2)).toThrow(/not 1 words × 2/);
  });
});

describe('GloVe repacking', () => {
  it('keeps only the words the tokenizer yields whole, most frequent first', () => {
    const words = ['the', ',', 'flow', 'New', 'high-speed', 'x', 'wing', 'flow', 'mach2', 'café'];
    expect(tokenWords(words, 10).map((row) => words[row])).toEqual(['flow', 'wing', 'mach2']);
    expect(tokenWords(words, 2).map((row) => words[row])).toEqual(['flow', 'wing']);
  });

  it('removes the common direction: centered, unit rows, orthogonal to the top component', () => {
    // Three words sharing a large offset along the first axis, spread along the others.
    const rows = Float32Array.from([10, 1, 0, 10, -1, 0.2, 10, 0, 1, 10, 0, -1.2]);
    postProcess(rows, 3, 1);
    for (const r of [0, 1]) {
      const norm = Math.hypot(rows[r * 3]!, rows[r * 3 + 1]!, rows[r * 3 + 2]!);
      expect(norm).toBeCloseTo(1, 5);
    }
    // Before: every pair had cosine above 0.98. After: the first two words point apart.
    const cos = rows[0]! * rows[3]! + rows[1]! * rows[4]! + rows[2]! * rows[5]!;
    expect(cos).toBeLessThan(0);
  });

  it('packs the kept words with their processing in the header', () => {
    const words = ['alpha', 'the', 'beta', 'gamma'];
    const vectors = Float32Array.from({ length: 16 }, (_, i) => Math.cos(i * 1.7));
    const read = readWordVectors(
      repackGlove(words, vectors, 4, { maxWords: 2, removeComponents: 0, source: 's' }),
    );
    expect([...read.rows.keys()]).toEqual(['alpha', 'beta']);
    expect(read.header).toMatchObject({ words: 2, dim: 4, source: 's', removeComponents: 0 });
  });
});
