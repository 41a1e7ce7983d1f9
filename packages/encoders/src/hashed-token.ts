/**
 * The embedded multi-vector encoder: hashed token vectors for late interaction, offline and deterministic.
 * It matches words and their spelling variants only; see the package README for what to expect of it.
 */
import { packSignBits } from './binary';
import { gaussianVector } from './hash';
import { distinctTokens } from './tokenize';
import { BINARY_BYTES, type EncodeMode, type MultiVector, type MultiVectorEncoder, TOKEN_DIM } from './types';

export interface HashedTokenEncoderOptions {
  /** Most token vectors of a document (its distinct tokens in order of first occurrence). Default 128. */
  maxDocumentTokens?: number;
  /** Most token vectors of a query. Default 32. */
  maxQueryTokens?: number;
  /**
   * Weight of the (unit-length) character-trigram part of a token vector against its (unit-length)
   * whole-word part. Default 1: spelling variants land near 0.3, unrelated words near 0 ± 0.09.
   */
  trigramWeight?: number;
  /** Token vectors kept in memory before the cache starts over. Default 200,000 (at most ~110 MB). */
  cacheSize?: number;
}

const SLAB_ROWS = 8192;
const TRIGRAM_CACHE_SIZE = 100_000;

/**
 * Each token becomes normalize(G(token) + w · normalize(Σ G(trigram))), where G is a unit-length
 * pseudo-random Gaussian vector keyed by the string and the trigrams are those of `#token#`. Exact words
 * therefore match with similarity 1, variants sharing most trigrams (index, indexing, indexed) with a
 * clearly positive similarity, and unrelated words near 0.
 */
export class HashedTokenEncoder implements MultiVectorEncoder {
  readonly name = 'embedded:hashed-token-128';
  readonly maxDocumentTokens: number;
  readonly maxQueryTokens: number;
  readonly trigramWeight: number;
  private readonly cacheSize: number;
  // Token vectors live in slabs of SLAB_ROWS rows; the map holds each token's row number.
  private readonly rows = new Map<string, number>();
  private readonly vectorSlabs: Float32Array[] = [];
  private readonly binarySlabs: Uint8Array[] = [];
  private readonly trigrams = new Map<string, Float32Array>();
  private readonly trigramSum = new Float32Array(TOKEN_DIM);

  constructor(options: HashedTokenEncoderOptions = {}) {
    this.maxDocumentTokens = positive(options.maxDocumentTokens ?? 128, 'maxDocumentTokens');
    this.maxQueryTokens = positive(options.maxQueryTokens ?? 32, 'maxQueryTokens');
    this.cacheSize = positive(options.cacheSize ?? 200_000, 'cacheSize');
    this.trigramWeight = options.trigramWeight ?? 1;
  }

  async encode(texts: string[], mode: EncodeMode): Promise<MultiVector[]> {
    return texts.map((text) => this.encodeOne(text, mode));
  }

  /** Synchronous form of `encode` for one text. */
  encodeOne(text: string, mode: EncodeMode): MultiVector {
    const tokens = distinctTokens(text, mode === 'query' ? this.maxQueryTokens : this.maxDocumentTokens);
    const vectors = new Float32Array(tokens.length * TOKEN_DIM);
    const binary = new Uint8Array(tokens.length * BINARY_BYTES);
    for (let t = 0; t < tokens.length; t++) {
      const row = this.row(tokens[t]!);
      const slab = row >>> 13;
      const offset = row & (SLAB_ROWS - 1);
      const source = this.vectorSlabs[slab]!;
      const from = offset * TOKEN_DIM;
      const to = t * TOKEN_DIM;
      for (let i = 0; i < TOKEN_DIM; i++) vectors[to + i] = source[from + i]!;
      const bits = this.binarySlabs[slab]!;
      for (let i = 0; i < BINARY_BYTES; i++) binary[t * BINARY_BYTES + i] = bits[offset * BINARY_BYTES + i]!;
    }
    return { tokens: tokens.length, vectors, binary };
  }

  /** The unit-length vector of one token (a copy). */
  tokenVector(token: string): Float32Array {
    const row = this.row(token);
    const from = (row & (SLAB_ROWS - 1)) * TOKEN_DIM;
    return this.vectorSlabs[row >>> 13]!.slice(from, from + TOKEN_DIM);
  }

  private row(token: string): number {
    const cached = this.rows.get(token);
    if (cached !== undefined) return cached;
    if (this.rows.size >= this.cacheSize) this.rows.clear();
    const row = this.rows.size;
    const slab = row >>> 13;
    if (slab === this.vectorSlabs.length) {
      this.vectorSlabs.push(new Float32Array(SLAB_ROWS * TOKEN_DIM));
      this.binarySlabs.push(new Uint8Array(SLAB_ROWS * BINARY_BYTES));
    }
    const offset = row & (SLAB_ROWS - 1);
    const target = this.vectorSlabs[slab]!.subarray(offset * TOKEN_DIM, (offset + 1) * TOKEN_DIM);
    this.computeTokenVector(token, target);
    this.binarySlabs[slab]!.set(packSignBits(target), offset * BINARY_BYTES);
    this.rows.set(token, row);
    return row;
  }

  private computeTokenVector(token: string, out: Float32Array): void {
    unit(gaussianVector(token, out));
    const sum = this.trigramSum.fill(0);
    const padded = `#${token}#`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      const trigram = this.trigram(padded.slice(i, i + 3));
      for (let d = 0; d < TOKEN_DIM; d++) sum[d] = sum[d]! + trigram[d]!;
    }
    unit(sum);
    for (let d = 0; d < TOKEN_DIM; d++) out[d] = out[d]! + this.trigramWeight * sum[d]!;
    unit(out);
  }

  private trigram(trigram: string): Float32Array {
    const cached = this.trigrams.get(trigram);
    if (cached) return cached;
    if (this.trigrams.size >= TRIGRAM_CACHE_SIZE) this.trigrams.clear();
    // The \u0001 prefix keeps trigram keys apart from 3-letter words, which hash to their own vectors.
    const vector = unit(gaussianVector(`\u0001${trigram}`, new Float32Array(TOKEN_DIM)));
    this.trigrams.set(trigram, vector);
    return vector;
  }
}

function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
