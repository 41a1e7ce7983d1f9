import { describe, expect, it } from 'vitest';
import { distinctCodes, floatBitsScores, RepeatedFloatMaxSim } from '../src/distinct';
import { codeWords, floatBinaryMaxSim, floatMaxSim, packSignBits, unpackedBitTables } from '../src/index';

const DIM = 128;

function values(count: number, seed: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

describe('distinct codes', () => {
  it('numbers every distinct code once, in order of first occurrence', () => {
    const words = values(6 * DIM, 1);
    // Tokens 0..5 of which 1 = 0 and 4 = 2.
    words.copyWithin(DIM, 0, DIM);
    words.copyWithin(4 * DIM, 2 * DIM, 3 * DIM);
    const codes = codeWords(packSignBits(words));
    const distinct = distinctCodes(codes, 6, 1)!;
    expect(Array.from(distinct.of)).toEqual([0, 0, 1, 2, 1, 3]);
    expect(distinct.count).toBe(4);
    expect(Array.from(distinct.bytes.subarray(16, 32))).toEqual(
      Array.from(packSignBits(words).subarray(32, 48)),
    );
  });

  it('keeps its table through growth and gives up when too few codes repeat', () => {
    // 20,000 tokens over 5,000 distinct codes: the table grows several times.
    const base = codeWords(packSignBits(values(5_000 * DIM, 2)));
    const words = new Uint32Array(20_000 * 4);
    for (let t = 0; t < 20_000; t++)
      words.set(base.subarray(((t * 7) % 5_000) * 4, ((t * 7) % 5_000) * 4 + 4), t * 4);
    const distinct = distinctCodes(words, 20_000)!;
    expect(distinct.count).toBe(5_000);
    for (let t = 0; t < 20_000; t += 997) {
      const code = distinct.of[t]!;
      expect(Array.from(words.subarray(t * 4, t * 4 + 4))).toEqual(
        Array.from(new Uint32Array(distinct.bytes.slice(code * 16, code * 16 + 16).buffer)),
      );
    }
    expect(distinctCodes(base, 5_000)).toBeUndefined();
  });

  it('scores float·bits MaxSim as floatBinaryMaxSim does, query after query', () => {
    const tokens = values(40 * DIM, 3);
    for (let t = 20; t < 40; t++) tokens.copyWithin(t * DIM, (t % 7) * DIM, ((t % 7) + 1) * DIM);
    const bytes = packSignBits(tokens);
    const distinct = distinctCodes(codeWords(bytes), 40)!;
    const offsets = Int32Array.from([0, 5, 5, 12, 20, 31, 40]);
    const plain = (tables: Float32Array, queryTokens: number, doc: number) =>
      floatBinaryMaxSim(tables, queryTokens, bytes, offsets[doc]! * 16, offsets[doc + 1]! - offsets[doc]!);
    for (const queryTokens of [0, 1, 3, 40]) {
      const tables = unpackedBitTables(values(queryTokens * DIM, 10 + queryTokens), queryTokens);
      const all = floatBitsScores(distinct, tables, queryTokens, offsets, undefined, 6);
      expect(Array.from(all)).toEqual([0, 1, 2, 3, 4, 5].map((doc) => plain(tables, queryTokens, doc)));
      const some = floatBitsScores(distinct, tables, queryTokens, offsets, Int32Array.from([4, 1, 2]), 6);
      expect(Array.from(some)).toEqual([4, 1, 2].map((doc) => plain(tables, queryTokens, doc)));
    }
  });

  it('scores float MaxSim as floatMaxSim does, reusing only tokens whose floats are the same', () => {
    // 30 tokens over 6 vectors; hints name the vector, except tokens 25..29 whose hint lies (another vector).
    const vectorsOf = values(6 * DIM, 4);
    const floats = new Float32Array(30 * DIM);
    const hints = new Int32Array(30);
    for (let t = 0; t < 30; t++) {
      const vector = (t * 5) % 6;
      floats.set(vectorsOf.subarray(vector * DIM, (vector + 1) * DIM), t * DIM);
      hints[t] = t >= 25 ? (vector + 1) % 6 : vector;
    }
    const bits = new Int32Array(floats.buffer);
    const offsets = [0, 4, 4, 11, 25, 30];
    for (const queryTokens of [1, 2, 7]) {
      const query = values(queryTokens * DIM, 20 + queryTokens);
      const repeated = new RepeatedFloatMaxSim(query, queryTokens);
      for (let doc = 0; doc + 1 < offsets.length; doc++) {
        const start = offsets[doc]!;
        const tokens = offsets[doc + 1]! - start;
        expect(repeated.score(floats, bits, start * DIM, tokens, hints, start)).toBe(
          floatMaxSim(query, queryTokens, floats, start * DIM, tokens),
        );
      }
    }
  });
});
