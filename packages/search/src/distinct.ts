/**
 * The distinct token codes of a table. An encoder that gives a word the same vector wherever it occurs (the
 * embedded one does) repeats codes a lot: the 2.4 million tokens of 100,000 code chunks hold about 52,000
 * distinct codes, and the 2,000 candidates of a query some 4,000 among their 60,000 tokens. A score that
 * depends on the code alone is then computed once per distinct code a query meets.
 */
import { floatBitsOfCode, TOKEN_DIM } from './scoring';

export interface DistinctCodes {
  /** Per token, the number of its distinct code. */
  of: Int32Array;
  count: number;
  /** The distinct codes, 16 bytes each. */
  bytes: Uint8Array;
  /** Per distinct code, the query that scored it last and where its scores are; see `floatBitsScores`. */
  stamps: Int32Array;
  slots: Int32Array;
  serial: number;
  values: Float64Array;
}

const mix = (w0: number, w1: number, w2: number, w3: number): number => {
  let h = Math.imul(w0 ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ w1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16) ^ w2, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ w3, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

/**
 * Numbers the distinct 128-bit codes of `tokens` tokens (four words each, in `words`); undefined when more
 * than `maxShare` of the tokens have distinct codes, too few repeats to be worth the indirection.
 */
export function distinctCodes(words: Uint32Array, tokens: number, maxShare = 0.5): DistinctCodes | undefined {
  const most = Math.floor(tokens * maxShare);
  const of = new Int32Array(tokens);
  let codes = new Uint32Array(4 * 1024);
  let count = 0;
  // Open addressing on code numbers, kept at most half full.
  let mask = (1 << 12) - 1;
  let slots = new Int32Array(mask + 1).fill(-1);
  const place = (code: number) => {
    let slot = mix(codes[code * 4]!, codes[code * 4 + 1]!, codes[code * 4 + 2]!, codes[code * 4 + 3]!) & mask;
    while (slots[slot] !== -1) slot = (slot + 1) & mask;
    slots[slot] = code;
  };
  for (let t = 0, o = 0; t < tokens; t++, o += 4) {
    const w0 = words[o]!;
    const w1 = words[o + 1]!;
    const w2 = words[o + 2]!;
    const w3 = words[o + 3]!;
    let slot = mix(w0, w1, w2, w3) & mask;
    for (;;) {
      const code = slots[slot]!;
      if (code === -1) break;
      const c = code * 4;
      if (codes[c] === w0 && codes[c + 1] === w1 && codes[c + 2] === w2 && codes[c + 3] === w3) break;
      slot = (slot + 1) & mask;
    }
    if (slots[slot] !== -1) {
      of[t] = slots[slot]!;
      continue;
    }
    if (count === most) return undefined;
    if ((count + 1) * 4 > codes.length) {
      const grown = new Uint32Array(codes.length * 2);
      grown.set(codes);
      codes = grown;
    }
    codes.set([w0, w1, w2, w3], count * 4);
    of[t] = count;
    slots[slot] = count++;
    if (count * 2 > mask) {
      mask = mask * 2 + 1;
      slots = new Int32Array(mask + 1).fill(-1);
      for (let code = 0; code < count; code++) place(code);
    }
  }
  return {
    of,
    count,
    bytes: new Uint8Array(codes.buffer, 0, count * 16).slice(),
    stamps: new Int32Array(count),
    slots: new Int32Array(count),
    serial: 0,
    values: new Float64Array(1024),
  };
}

/**
 * Float·bits MaxSim of one query (its unpacked-bit `tables`) for the given documents (all `documents` when
 * undefined), whose tokens run from `offsets[doc]` to `offsets[doc + 1]`, in that order: each distinct
 * code's products with the query tokens are computed once, with the values `floatBinaryMaxSim` computes.
 */
export function floatBitsScores(
  distinct: DistinctCodes,
  tables: Float32Array,
  queryTokens: number,
  offsets: Int32Array,
  docs: Int32Array | undefined,
  documents: number,
): Float64Array {
  const count = docs ? docs.length : documents;
  const scores = new Float64Array(count);
  if (queryTokens === 0) return scores;
  if (distinct.serial === 0x7fffffff) {
    distinct.stamps.fill(0);
    distinct.serial = 0;
  }
  const serial = ++distinct.serial;
  const { of, bytes, stamps, slots } = distinct;
  // First the products of every distinct code the documents hold, then the documents' maxima.
  let used = 0;
  for (let i = 0; i < count; i++) {
    const doc = docs ? docs[i]! : i;
    for (let t = offsets[doc]!, end = offsets[doc + 1]!; t < end; t++) {
      const code = of[t]!;
      if (stamps[code] === serial) continue;
      stamps[code] = serial;
      slots[code] = used * queryTokens;
      if ((used + 1) * queryTokens > distinct.values.length) {
        const grown = new Float64Array(distinct.values.length * 2 + queryTokens);
        grown.set(distinct.values);
        distinct.values = grown;
      }
      floatBitsOfCode(tables, queryTokens, bytes, code * 16, distinct.values, used * queryTokens);
      used++;
    }
  }
  const values = distinct.values;
  const best = new Float64Array(queryTokens);
  for (let i = 0; i < count; i++) {
    const doc = docs ? docs[i]! : i;
    const end = offsets[doc + 1]!;
    if (offsets[doc] === end) continue;
    best.fill(Number.NEGATIVE_INFINITY);
    for (let t = offsets[doc]!; t < end; t++) {
      for (let q = 0, at = slots[of[t]!]!; q < queryTokens; q++, at++) {
        const value = values[at]!;
        if (value > best[q]!) best[q] = value;
      }
    }
    let sum = 0;
    for (let q = 0; q < queryTokens; q++) sum += best[q]!;
    scores[i] = sum;
  }
  return scores;
}

/**
 * Float MaxSim of one query over documents whose token vectors repeat. Each token comes with a hint, the
 * number of its distinct code: the first token of a hint has its dot products with the query tokens
 * computed and kept; a later token of that hint whose floats are bit for bit the first one's reuses them,
 * any other is computed in full. Scores are exactly those of `floatMaxSim`.
 */
export class RepeatedFloatMaxSim {
  private readonly slots = new Map<number, number>();
  /** Per slot: the floats (as bits) and position of the token its products belong to. */
  private readonly sources: Int32Array[] = [];
  private readonly starts: number[] = [];
  private values: Float64Array;
  private readonly best: Float64Array;
  private readonly fresh: Float64Array;

  constructor(
    private readonly query: Float32Array,
    private readonly queryTokens: number,
  ) {
    this.values = new Float64Array(queryTokens * 256);
    this.best = new Float64Array(queryTokens);
    this.fresh = new Float64Array(queryTokens);
  }

  /**
   * The document's score: its `docTokens` tokens start at `floats[start]` (`bits` views the same buffer as
   * 32-bit integers), their hints at `hints[hintStart]`.
   */
  score(
    floats: Float32Array,
    bits: Int32Array,
    start: number,
    docTokens: number,
    hints: Int32Array,
    hintStart: number,
  ): number {
    const { queryTokens, best, fresh, slots, sources, starts } = this;
    if (queryTokens === 0 || docTokens === 0) return 0;
    best.fill(Number.NEGATIVE_INFINITY);
    for (let t = 0, d = start; t < docTokens; t++, d += TOKEN_DIM) {
      const hint = hints[hintStart + t]!;
      const slot = slots.get(hint);
      let values = fresh;
      let at = 0;
      if (slot !== undefined && sameBits(bits, d, sources[slot]!, starts[slot]!)) {
        values = this.values;
        at = slot * queryTokens;
      } else {
        tokenDots(this.query, queryTokens, floats, d, fresh);
        if (slot === undefined) {
          const next = sources.length;
          if ((next + 1) * queryTokens > this.values.length) {
            const grown = new Float64Array(this.values.length * 2);
            grown.set(this.values);
            this.values = grown;
          }
          this.values.set(fresh, next * queryTokens);
          slots.set(hint, next);
          sources.push(bits);
          starts.push(d);
        }
      }
      for (let q = 0; q < queryTokens; q++, at++) if (values[at]! > best[q]!) best[q] = values[at]!;
    }
    let sum = 0;
    for (let q = 0; q < queryTokens; q++) sum += best[q]!;
    return sum;
  }
}

function sameBits(a: Int32Array, aStart: number, b: Int32Array, bStart: number): boolean {
  for (let i = 0; i < TOKEN_DIM; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/** The dot products of one document token (from `doc[d]`) with every query token, summed as `floatMaxSim` does. */
function tokenDots(
  query: Float32Array,
  queryTokens: number,
  doc: Float32Array,
  d: number,
  out: Float64Array,
): void {
  for (let q = 0; q < queryTokens; q++) {
    const qo = q * TOKEN_DIM;
    let dot = 0;
    for (let i = 0; i < TOKEN_DIM; i++) dot += query[qo + i]! * doc[d + i]!;
    out[q] = dot;
  }
}
