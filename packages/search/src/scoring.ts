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
 * as `1 - 2h/128`, averaged over query tokens (weighted by `weights` when given: see `queryTokenWeights`).
 * `doc` holds the document's codes from word `start` on.
 */
export function binaryMaxSim(
  query: Uint32Array,
  queryTokens: number,
  doc: Uint32Array,
  start: number,
  docTokens: number,
  weights?: Float64Array,
): number {
  if (queryTokens === 0 || docTokens === 0) return 0;
  if (weights) return weightedBinaryMaxSim(query, queryTokens, doc, start, docTokens, weights);
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

function weightedBinaryMaxSim(
  query: Uint32Array,
  queryTokens: number,
  doc: Uint32Array,
  start: number,
  docTokens: number,
  weights: Float64Array,
): number {
  let sum = 0;
  let total = 0;
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
    sum += weights[q]! * (1 - (2 * best) / 128);
    total += weights[q]!;
  }
  return total > 0 ? sum / total : 0;
}

/**
 * The weight of each query token in binary MaxSim: the length of its float row. Encoders that weigh query
 * tokens (the embedded one scales a common word's row down) keep that weight, which the sign bits lose;
 * undefined when every row has the same length (unit rows: a plain mean).
 */
export function queryTokenWeights(vectors: Float32Array, tokens: number): Float64Array | undefined {
  const weights = new Float64Array(tokens);
  let differ = false;
  for (let q = 0; q < tokens; q++) {
    let norm = 0;
    for (let i = q * TOKEN_DIM; i < (q + 1) * TOKEN_DIM; i++) norm += vectors[i]! * vectors[i]!;
    weights[q] = Math.sqrt(norm);
    if (Math.abs(weights[q]! - weights[0]!) > 1e-6) differ = true;
  }
  return differ ? weights : undefined;
}

/**
 * Float MaxSim (ColBERT): Σ over query tokens of the largest dot product with any document token. Query
 * tokens are taken four (then two, then one) at a time so each document value read serves several dot
 * products; every dot product and the sum keep the order of the plain loop, so the result is the same.
 */
export function floatMaxSim(
  query: Float32Array,
  queryTokens: number,
  doc: Float32Array,
  start: number,
  docTokens: number,
): number {
  if (queryTokens === 0 || docTokens === 0) return 0;
  const end = start + docTokens * TOKEN_DIM;
  let sum = 0;
  let q = 0;
  for (; q + 4 <= queryTokens; q += 4) {
    const qo = q * TOKEN_DIM;
    let best0 = Number.NEGATIVE_INFINITY;
    let best1 = Number.NEGATIVE_INFINITY;
    let best2 = Number.NEGATIVE_INFINITY;
    let best3 = Number.NEGATIVE_INFINITY;
    for (let d = start; d < end; d += TOKEN_DIM) {
      let dot0 = 0;
      let dot1 = 0;
      let dot2 = 0;
      let dot3 = 0;
      for (let i = 0, x = qo; i < TOKEN_DIM; i++, x++) {
        const value = doc[d + i]!;
        dot0 += query[x]! * value;
        dot1 += query[x + TOKEN_DIM]! * value;
        dot2 += query[x + 2 * TOKEN_DIM]! * value;
        dot3 += query[x + 3 * TOKEN_DIM]! * value;
      }
      if (dot0 > best0) best0 = dot0;
      if (dot1 > best1) best1 = dot1;
      if (dot2 > best2) best2 = dot2;
      if (dot3 > best3) best3 = dot3;
    }
    sum += best0;
    sum += best1;
    sum += best2;
    sum += best3;
  }
  for (; q + 2 <= queryTokens; q += 2) {
    const qo = q * TOKEN_DIM;
    let best0 = Number.NEGATIVE_INFINITY;
    let best1 = Number.NEGATIVE_INFINITY;
    for (let d = start; d < end; d += TOKEN_DIM) {
      let dot0 = 0;
      let dot1 = 0;
      for (let i = 0, x = qo; i < TOKEN_DIM; i++, x++) {
        const value = doc[d + i]!;
        dot0 += query[x]! * value;
        dot1 += query[x + TOKEN_DIM]! * value;
      }
      if (dot0 > best0) best0 = dot0;
      if (dot1 > best1) best1 = dot1;
    }
    sum += best0;
    sum += best1;
  }
  for (; q < queryTokens; q++) {
    const qo = q * TOKEN_DIM;
    let best = Number.NEGATIVE_INFINITY;
    for (let d = start; d < end; d += TOKEN_DIM) {
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
 * the unpacked (0/1) document bits, so one token pair costs 16 lookups. Written into `into` when it is
 * large enough.
 */
export function unpackedBitTables(
  query: Float32Array,
  queryTokens: number,
  into?: Float32Array,
): Float32Array {
  const size = queryTokens * 16 * 256;
  const tables = into && into.length >= size ? into : new Float32Array(size);
  // A byte value's sum is that of the value without its last set bit plus that bit's query value: the same
  // additions, in the same order from the first bit on, as summing its set bits one by one.
  const sums = new Float64Array(256);
  for (let q = 0; q < queryTokens; q++) {
    for (let byte = 0; byte < 16; byte++) {
      const base = (q * 16 + byte) * 256;
      const from = q * TOKEN_DIM + byte * 8;
      tables[base] = 0;
      for (let value = 1; value < 256; value++) {
        const last = 31 - Math.clz32(value & -value);
        sums[value] = sums[value & (value - 1)]! + query[from + 7 - last]!;
        tables[base + value] = sums[value]!;
      }
    }
  }
  return tables;
}

/** Per query token, the best float·bits product so far of the document being scored. */
let bestScratch = new Float64Array(32);

/**
 * Float query · unpacked binary document bits: Σ over query tokens of the largest such dot product. Each
 * document token's 16 bytes are read once and serve every query token.
 */
export function floatBinaryMaxSim(
  tables: Float32Array,
  queryTokens: number,
  doc: Uint8Array,
  start: number,
  docTokens: number,
): number {
  if (queryTokens === 0 || docTokens === 0) return 0;
  if (bestScratch.length < queryTokens) bestScratch = new Float64Array(queryTokens);
  const best = bestScratch;
  best.fill(Number.NEGATIVE_INFINITY, 0, queryTokens);
  const end = start + docTokens * 16;
  for (let o = start; o < end; o += 16) {
    // Offsets of the byte values in their 256-entry tables.
    const b0 = doc[o]!;
    const b1 = 256 + doc[o + 1]!;
    const b2 = 512 + doc[o + 2]!;
    const b3 = 768 + doc[o + 3]!;
    const b4 = 1024 + doc[o + 4]!;
    const b5 = 1280 + doc[o + 5]!;
    const b6 = 1536 + doc[o + 6]!;
    const b7 = 1792 + doc[o + 7]!;
    const b8 = 2048 + doc[o + 8]!;
    const b9 = 2304 + doc[o + 9]!;
    const b10 = 2560 + doc[o + 10]!;
    const b11 = 2816 + doc[o + 11]!;
    const b12 = 3072 + doc[o + 12]!;
    const b13 = 3328 + doc[o + 13]!;
    const b14 = 3584 + doc[o + 14]!;
    const b15 = 3840 + doc[o + 15]!;
    for (let q = 0, t = 0; q < queryTokens; q++, t += 4096) {
      const dot =
        tables[t + b0]! +
        tables[t + b1]! +
        tables[t + b2]! +
        tables[t + b3]! +
        tables[t + b4]! +
        tables[t + b5]! +
        tables[t + b6]! +
        tables[t + b7]! +
        tables[t + b8]! +
        tables[t + b9]! +
        tables[t + b10]! +
        tables[t + b11]! +
        tables[t + b12]! +
        tables[t + b13]! +
        tables[t + b14]! +
        tables[t + b15]!;
      if (dot > best[q]!) best[q] = dot;
    }
  }
  let sum = 0;
  for (let q = 0; q < queryTokens; q++) sum += best[q]!;
  return sum;
}

/**
 * The float·bits products of one 16-byte code (from `doc[at]`) with every query token, into
 * `out[outAt..outAt + queryTokens)`: the values `floatBinaryMaxSim` takes the max of.
 */
export function floatBitsOfCode(
  tables: Float32Array,
  queryTokens: number,
  doc: Uint8Array,
  at: number,
  out: Float64Array,
  outAt: number,
): void {
  const b0 = doc[at]!;
  const b1 = 256 + doc[at + 1]!;
  const b2 = 512 + doc[at + 2]!;
  const b3 = 768 + doc[at + 3]!;
  const b4 = 1024 + doc[at + 4]!;
  const b5 = 1280 + doc[at + 5]!;
  const b6 = 1536 + doc[at + 6]!;
  const b7 = 1792 + doc[at + 7]!;
  const b8 = 2048 + doc[at + 8]!;
  const b9 = 2304 + doc[at + 9]!;
  const b10 = 2560 + doc[at + 10]!;
  const b11 = 2816 + doc[at + 11]!;
  const b12 = 3072 + doc[at + 12]!;
  const b13 = 3328 + doc[at + 13]!;
  const b14 = 3584 + doc[at + 14]!;
  const b15 = 3840 + doc[at + 15]!;
  for (let q = 0, t = 0; q < queryTokens; q++, t += 4096) {
    out[outAt + q] =
      tables[t + b0]! +
      tables[t + b1]! +
      tables[t + b2]! +
      tables[t + b3]! +
      tables[t + b4]! +
      tables[t + b5]! +
      tables[t + b6]! +
      tables[t + b7]! +
      tables[t + b8]! +
      tables[t + b9]! +
      tables[t + b10]! +
      tables[t + b11]! +
      tables[t + b12]! +
      tables[t + b13]! +
      tables[t + b14]! +
      tables[t + b15]!;
  }
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
