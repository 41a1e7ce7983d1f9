/**
 * Late-interaction scores over flat token arrays. Binary codes are 128 bits, read as four 32-bit words;
 * `1 - 2h/128` is the similarity of two codes at hamming distance h.
 */

export const TOKEN_DIM = 128;
export const CODE_WORDS = 4;

export function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  v = (v + (v >>> 4)) & 0x0f0f0f0f;
  return Math.imul(v, 0x01010101) >>> 24;
}

/**
 * Binary MaxSim of one document: for each query token the smallest hamming distance to any document token,
 * as `1 - 2h/128`, averaged over query tokens. `doc` holds the document's codes from word `start` on.
 */
export function binaryMaxSim(
  query: Uint32Array,
  queryTokens: number,
  doc: Uint32Array,
  start: number,
  docTokens: number,
): number {
  if (queryTokens === 0 || docTokens === 0) return 0;
  let sum = 0;
  for (let q = 0; q < queryTokens; q++) {
    const q0 = query[q * 4]!;
    const q1 = query[q * 4 + 1]!;
    const q2 = query[q * 4 + 2]!;
    const q3 = query[q * 4 + 3]!;
    let best = 129;
    for (let t = 0, o = start; t < docTokens; t++, o += 4) {
      const h =
        popcount32(q0 ^ doc[o]!) +
        popcount32(q1 ^ doc[o + 1]!) +
        popcount32(q2 ^ doc[o + 2]!) +
        popcount32(q3 ^ doc[o + 3]!);
      if (h < best) best = h;
    }
    sum += 1 - (2 * best) / 128;
  }
  return sum / queryTokens;
}

/** Float MaxSim (ColBERT): Σ over query tokens of the largest dot product with any document token. */
export function floatMaxSim(
  query: Float32Array,
  queryTokens: number,
  doc: Float32Array,
  start: number,
  docTokens: number,
): number {
  if (queryTokens === 0 || docTokens === 0) return 0;
  let sum = 0;
  for (let q = 0; q < queryTokens; q++) {
    const qo = q * TOKEN_DIM;
    let best = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < docTokens; t++) {
      const d = start + t * TOKEN_DIM;
      let dot = 0;
      for (let i = 0; i < TOKEN_DIM; i++) dot += query[qo + i]! * doc[d + i]!;
      if (dot > best) best = dot;
    }
    sum += best;
  }
  return sum;
}

/**
 * Per query token, a table of 16 × 256 partial dot products: the float query against every byte value of
 * the unpacked (0/1) document bits, so one token pair costs 16 lookups.
 */
export function unpackedBitTables(query: Float32Array, queryTokens: number): Float32Array {
  const tables = new Float32Array(queryTokens * 16 * 256);
  for (let q = 0; q < queryTokens; q++) {
    for (let byte = 0; byte < 16; byte++) {
      const base = (q * 16 + byte) * 256;
      for (let value = 0; value < 256; value++) {
        let sum = 0;
        for (let bit = 0; bit < 8; bit++) {
          if (value & (0x80 >> bit)) sum += query[q * TOKEN_DIM + byte * 8 + bit]!;
        }
        tables[base + value] = sum;
      }
    }
  }
  return tables;
}

/** Float query · unpacked binary document bits: Σ over query tokens of the largest such dot product. */
export function floatBinaryMaxSim(
  tables: Float32Array,
  queryTokens: number,
  doc: Uint8Array,
  start: number,
  docTokens: number,
): number {
  if (queryTokens === 0 || docTokens === 0) return 0;
  let sum = 0;
  for (let q = 0; q < queryTokens; q++) {
    const base = q * 4096;
    let best = Number.NEGATIVE_INFINITY;
    for (let t = 0, o = start; t < docTokens; t++, o += 16) {
      let dot = 0;
      for (let byte = 0; byte < 16; byte++) dot += tables[base + byte * 256 + doc[o + byte]!]!;
      if (dot > best) best = dot;
    }
    sum += best;
  }
  return sum;
}

/** Views a packed code buffer as 32-bit words, copying only when it is not 4-byte aligned. */
export function codeWords(bytes: Uint8Array): Uint32Array {
  if (bytes.byteOffset % 4 === 0)
    return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  return new Uint32Array(bytes.slice().buffer);
}
export function packSignBits(vectors: Float32Array, dim = 128): Uint8Array {
  const tokens = vectors.length / dim;
  const out = new Uint8Array(tokens * (dim / 8));
  for (let i = 0; i < vectors.length; i++) if (vectors[i]! > 0) out[i >> 3]! |= 0x80 >> (i & 7);
  return out;
}
