/**
 * The embedded multi-vector encoder: hashed token vectors for late interaction, offline and deterministic.
 * It matches words and their spelling variants only; see the package README for what to expect of it.
 */
import { gaussianVector } from './hash';
import { TokenVectorCache } from './token-cache';
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

const TRIGRAM_CACHE_SIZE = 100_000;

/**
 * The lexical part of a token: normalize(G(token) + w · normalize(Σ G(trigram))), where G is a unit-length
 * pseudo-random Gaussian vector keyed by the string and the trigrams are those of `#token#`. Exact words
 * therefore match with similarity 1, variants sharing most trigrams (index, indexing, indexed) with a
 * clearly positive similarity, and unrelated words near 0.
 */
export class LexicalTokenVectors {
  private readonly trigrams = new Map<string, Float32Array>();
  private readonly trigramSum = new Float32Array(TOKEN_DIM);

  constructor(readonly trigramWeight = 1) {}

  /** Writes the token's unit lexical vector into `out` (TOKEN_DIM floats). */
  compute(token: string, out: Float32Array): void {
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

/**
 * Each token becomes its lexical vector (`LexicalTokenVectors`): words and their spelling variants match,
 * nothing else does.
 */
export class HashedTokenEncoder implements MultiVectorEncoder {
  readonly name = 'embedded:hashed-token-128';
  /** Only the trigram weight changes a word's vector (token caps change which words, not their vectors). */
  readonly fingerprint: string;
  readonly maxDocumentTokens: number;
  readonly maxQueryTokens: number;
  readonly trigramWeight: number;
  private readonly cache: TokenVectorCache;

  constructor(options: HashedTokenEncoderOptions = {}) {
    this.maxDocumentTokens = positive(options.maxDocumentTokens ?? 128, 'maxDocumentTokens');
    this.maxQueryTokens = positive(options.maxQueryTokens ?? 32, 'maxQueryTokens');
    this.trigramWeight = options.trigramWeight ?? 1;
    this.fingerprint = `${this.name}@1${this.trigramWeight === 1 ? '' : `;trigram=${this.trigramWeight}`}`;
    const lexical = new LexicalTokenVectors(this.trigramWeight);
    this.cache = new TokenVectorCache(
      (token, out) => lexical.compute(token, out),
      positive(options.cacheSize ?? 200_000, 'cacheSize'),
    );
  }

  async encode(texts: string[], mode: EncodeMode): Promise<MultiVector[]> {
    return texts.map((text) => this.encodeOne(text, mode));
  }

  /** Synchronous form of `encode` for one text. */
  encodeOne(text: string, mode: EncodeMode): MultiVector {
    const tokens = distinctTokens(text, mode === 'query' ? this.maxQueryTokens : this.maxDocumentTokens);
    const vectors = new Float32Array(tokens.length * TOKEN_DIM);
    const binary = new Uint8Array(tokens.length * BINARY_BYTES);
    for (let t = 0; t < tokens.length; t++) this.cache.copyInto(tokens[t]!, vectors, binary, t);
    return { tokens: tokens.length, vectors, binary };
  }

  /** The unit-length vector of one token (a copy). */
  tokenVector(token: string): Float32Array {
    return this.cache.vector(token);
  }
}

export function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}

export function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
