/** The embedded dense encoder: a hashed bag of words, offline and deterministic; lexical overlap only. */
import { gaussianVector } from './hash';
import { tokenize } from './tokenize';
import type { DenseEncoder, EncodeMode } from './types';

export interface HashedDenseEncoderOptions {
  /** Word vectors kept in memory before the cache starts over. Default 16,384 (about 50 MB at 768 floats). */
  cacheSize?: number;
}

/**
 * Each text becomes normalize(Σ over distinct words of (1 + ln tf) · G(word)), G a 768-dimension
 * pseudo-random Gaussian vector keyed by the word. Cosine similarity then approximates the overlap of the
 * two texts' weighted vocabularies (like TF cosine), with no notion of synonyms or meaning. A text without
 * words gives the zero vector, the one vector that is not unit length.
 */
export class HashedDenseEncoder implements DenseEncoder {
  readonly name = 'embedded:hashed-bow-768';
  readonly dim = 768;
  private readonly cacheSize: number;
  private readonly cache = new Map<string, Float32Array>();

  constructor(options: HashedDenseEncoderOptions = {}) {
    this.cacheSize = options.cacheSize ?? 16_384;
    if (!Number.isInteger(this.cacheSize) || this.cacheSize < 1) {
      throw new RangeError('cacheSize must be a positive integer');
    }
  }

  /** The mode is ignored: the bag of words treats queries and documents alike. */
  async embed(texts: string[], _mode: EncodeMode): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(text: string): Float32Array {
    const counts = new Map<string, number>();
    for (const token of tokenize(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
    const out = new Float32Array(this.dim);
    for (const [token, count] of counts) {
      const weight = 1 + Math.log(count);
      const vector = this.wordVector(token);
      for (let i = 0; i < this.dim; i++) out[i] = out[i]! + weight * vector[i]!;
    }
    let sum = 0;
    for (let i = 0; i < this.dim; i++) sum += out[i]! * out[i]!;
    if (sum > 0) {
      const scale = 1 / Math.sqrt(sum);
      for (let i = 0; i < this.dim; i++) out[i] = out[i]! * scale;
    }
    return out;
  }

  private wordVector(token: string): Float32Array {
    const cached = this.cache.get(token);
    if (cached) return cached;
    if (this.cache.size >= this.cacheSize) this.cache.clear();
    // The "dense:" prefix keeps these vectors independent of the multi-vector encoder's.
    const vector = gaussianVector(`dense:${token}`, new Float32Array(this.dim));
    let sum = 0;
    for (let i = 0; i < this.dim; i++) sum += vector[i]! * vector[i]!;
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < this.dim; i++) vector[i] = vector[i]! * scale;
    this.cache.set(token, vector);
    return vector;
  }
}
