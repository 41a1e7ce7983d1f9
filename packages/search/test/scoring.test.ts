import { describe, expect, it } from 'vitest';
import { floatBinaryMaxSim, floatMaxSim, packSignBits, unpackedBitTables } from '../src/index';

const DIM = 128;

/** Deterministic values in [-1, 1). */
function values(count: number, seed: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

/** The plain loops the scoring kernels must agree with exactly. */
function plainFloatMaxSim(query: Float32Array, queryTokens: number, doc: Float32Array, docTokens: number) {
  if (queryTokens === 0 || docTokens === 0) return 0;
  let sum = 0;
  for (let q = 0; q < queryTokens; q++) {
    let best = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < docTokens; t++) {
      let dot = 0;
      for (let i = 0; i < DIM; i++) dot += query[q * DIM + i]! * doc[t * DIM + i]!;
      if (dot > best) best = dot;
    }
    sum += best;
  }
  return sum;
}

function plainFloatBits(query: Float32Array, queryTokens: number, bits: Uint8Array, docTokens: number) {
  if (queryTokens === 0 || docTokens === 0) return 0;
  let sum = 0;
  for (let q = 0; q < queryTokens; q++) {
    let best = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < docTokens; t++) {
      let dot = 0;
      for (let byte = 0; byte < 16; byte++) {
        let partial = 0;
        for (let bit = 0; bit < 8; bit++) {
          if (bits[t * 16 + byte]! & (0x80 >> bit)) partial += query[q * DIM + byte * 8 + bit]!;
        }
        dot += Math.fround(partial);
      }
      if (dot > best) best = dot;
    }
    sum += best;
  }
  return sum;
}

describe('scoring kernels', () => {
  it('float MaxSim equals the plain loop for every query length', () => {
    const doc = values(7 * DIM, 1);
    for (let queryTokens = 0; queryTokens <= 11; queryTokens++) {
      const query = values(queryTokens * DIM, 100 + queryTokens);
      for (const docTokens of [0, 1, 3, 7]) {
        const padded = new Float32Array(DIM * 2 + doc.length);
        padded.set(doc.subarray(0, docTokens * DIM), DIM * 2);
        expect(floatMaxSim(query, queryTokens, padded, DIM * 2, docTokens)).toBe(
          plainFloatMaxSim(query, queryTokens, doc, docTokens),
        );
      }
    }
  });

  it('unpacked-bit tables sum the set bits of each byte value in bit order', () => {
    const query = values(3 * DIM, 7);
    const into = new Float32Array(5 * 16 * 256).fill(9);
    const tables = unpackedBitTables(query, 3, into);
    expect(tables).toBe(into);
    for (let q = 0; q < 3; q++) {
      for (let byte = 0; byte < 16; byte++) {
        for (let value = 0; value < 256; value++) {
          let sum = 0;
          for (let bit = 0; bit < 8; bit++)
            if (value & (0x80 >> bit)) sum += query[q * DIM + byte * 8 + bit]!;
          expect(tables[(q * 16 + byte) * 256 + value]).toBe(Math.fround(sum));
        }
      }
    }
  });

  it('float·bits MaxSim equals the plain loop for every query length', () => {
    const bits = packSignBits(values(9 * DIM, 2));
    for (const queryTokens of [0, 1, 2, 5, 33]) {
      const query = values(queryTokens * DIM, 200 + queryTokens);
      const tables = unpackedBitTables(query, queryTokens);
      for (const docTokens of [0, 1, 4, 8]) {
        expect(floatBinaryMaxSim(tables, queryTokens, bits, 16, docTokens)).toBe(
          plainFloatBits(query, queryTokens, bits.subarray(16), docTokens),
        );
      }
    }
  });
});
