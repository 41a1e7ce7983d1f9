/**
 * The default embedded multi-vector encoder: each token is its GloVe word vector (meaning: synonyms and
 * related words land close) combined with its hashed lexical vector (exact words, spelling variants,
 * identifiers and words GloVe does not know), in 128 dimensions. See the package README.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gaussianVector } from './hash';
import { LexicalTokenVectors, positive, unit } from './hashed-token';
import { TokenVectorCache } from './token-cache';
import { tokenize } from './tokenize';
import { BINARY_BYTES, type EncodeMode, type MultiVector, type MultiVectorEncoder, TOKEN_DIM } from './types';
import { loadWordVectors, type WordVectors } from './word-vectors';

/** The packed vectors shipped with this package (`npm run repack-vectors -w @tessera/encoders`). */
export const WORD_VECTORS_FILE = 'glove-6b-100d-50k.i8';

export interface GloveLexicalEncoderOptions {
  /** Packed word vectors, or the path of their file. Default: `TESSERA_WORD_VECTORS`, else the shipped file. */
  wordVectors?: WordVectors | string;
  /**
   * Share of a known word's vector that is its (projected) GloVe vector; the rest is its lexical vector.
   * Two known words then score `s · cos_glove + (1 - s) · lexical` (plus noise); an exact match scores 1.
   */
  semanticWeight?: number;
  /** Use only the `maxWords` most frequent words of the file; the others are encoded as unknown words. */
  maxWords?: number;
  /**
   * Query tokens are weighted by how rare the word is in English (its frequency rank in the vectors'
   * source), a fixed stand-in for IDF: `weightFloor` up to rank `weightFrom`, 1 from rank `weightTo` on,
   * linear in ln(rank) between; carried as the query row's length; words the vectors do not know weigh 1.
   * Set `weightFloor` to 1 to weigh every token alike. The binary copy keeps signs only, so binary scores
   * do not see the weights.
   */
  weightFloor?: number;
  weightFrom?: number;
  weightTo?: number;
  /** Query tokens among the `commonWords` most frequent words are dropped, unless every token is. */
  commonWords?: number;
  /** Most token vectors of a document; a longer one keeps its rarest distinct tokens. Default 128. */
  maxDocumentTokens?: number;
  /** Most token vectors of a query (its rarest distinct tokens). Default 32. */
  maxQueryTokens?: number;
  /** Token vectors kept in memory before the cache starts over. Default 200,000 (about 110 MB at most). */
  cacheSize?: number;
}

/** Chosen on the development queries of the evaluation collections (`npm run eval`; see the README). */
const defaults = {
  semanticWeight: 0.5,
  maxWords: Number.POSITIVE_INFINITY,
  weightFloor: 0.05,
  weightFrom: 1000,
  weightTo: 20_000,
  commonWords: 0,
};

/** The shipped file: beside this module in a bundle, in the package's data/ folder in the repository. */
export function defaultWordVectorsPath(): string {
  const candidates = [
    // Literal names: bundling (stacks/bundle.ts) copies the file beside the bundle that holds this module.
    fileURLToPath(new URL('./glove-6b-100d-50k.i8', import.meta.url)),
    fileURLToPath(new URL('../data/glove-6b-100d-50k.i8', import.meta.url)),
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) {
    throw new Error(
      `The word vectors of embedded:glove-lexical-128 are missing (looked for ${candidates.join(', ')}); ` +
        'set TESSERA_WORD_VECTORS to the packed file, or select TESSERA_EMBEDDED_ENCODER=hashed-token-128',
    );
  }
  return found;
}

/**
 * A deterministic TOKEN_DIM × dim matrix with orthonormal columns: it maps word vectors into TOKEN_DIM
 * dimensions keeping every dot product, and spreads each source dimension over all output dimensions so the
 * sign bits of the result behave as random hyperplanes (SimHash) over the word vectors.
 */
export function projectionMatrix(dim: number): Float64Array {
  if (dim > TOKEN_DIM) throw new RangeError(`word vectors of ${dim} dimensions do not fit in ${TOKEN_DIM}`);
  const columns: Float64Array[] = [];
  const draw = new Float32Array(TOKEN_DIM);
  for (let c = 0; c < dim; c++) {
    const column = Float64Array.from(gaussianVector(`\u0002glove-projection:${c}`, draw));
    for (const previous of columns) {
      let dot = 0;
      for (let i = 0; i < TOKEN_DIM; i++) dot += column[i]! * previous[i]!;
      for (let i = 0; i < TOKEN_DIM; i++) column[i]! -= dot * previous[i]!;
    }
    let norm = 0;
    for (let i = 0; i < TOKEN_DIM; i++) norm += column[i]! ** 2;
    norm = Math.sqrt(norm);
    for (let i = 0; i < TOKEN_DIM; i++) column[i]! /= norm;
    columns.push(column);
  }
  // Row-major TOKEN_DIM × dim.
  const matrix = new Float64Array(TOKEN_DIM * dim);
  for (let c = 0; c < dim; c++) for (let r = 0; r < TOKEN_DIM; r++) matrix[r * dim + c] = columns[c]![r]!;
  return matrix;
}

export class GloveLexicalEncoder implements MultiVectorEncoder {
  readonly name = 'embedded:glove-lexical-128';
  readonly maxDocumentTokens: number;
  readonly maxQueryTokens: number;
  readonly semanticWeight: number;
  private readonly options: typeof defaults;
  private readonly source: WordVectors | string | undefined;
  private loaded: { vectors: WordVectors; projection: Float64Array; fingerprint: string } | undefined;
  private readonly cache: TokenVectorCache;
  private readonly lexical = new LexicalTokenVectors(1);
  private readonly semantic = new Float32Array(TOKEN_DIM);

  constructor(options: GloveLexicalEncoderOptions = {}) {
    this.options = {
      semanticWeight: options.semanticWeight ?? defaults.semanticWeight,
      maxWords: options.maxWords ?? defaults.maxWords,
      weightFloor: options.weightFloor ?? defaults.weightFloor,
      weightFrom: options.weightFrom ?? defaults.weightFrom,
      weightTo: options.weightTo ?? defaults.weightTo,
      commonWords: options.commonWords ?? defaults.commonWords,
    };
    const { semanticWeight, weightFloor } = this.options;
    if (!(semanticWeight >= 0 && semanticWeight <= 1))
      throw new RangeError('semanticWeight must be in [0, 1]');
    if (!(weightFloor > 0 && weightFloor <= 1)) throw new RangeError('weightFloor must be in (0, 1]');
    this.semanticWeight = semanticWeight;
    this.maxDocumentTokens = positive(options.maxDocumentTokens ?? 128, 'maxDocumentTokens');
    this.maxQueryTokens = positive(options.maxQueryTokens ?? 32, 'maxQueryTokens');
    this.source = options.wordVectors;
    this.cache = new TokenVectorCache(
      (token, out) => this.compute(token, out),
      positive(options.cacheSize ?? 200_000, 'cacheSize'),
    );
  }

  /**
   * `embedded:glove-lexical-128@1;<first 16 hex digits of the vectors file's SHA-256>;s=<semanticWeight>`,
   * plus `;n=<maxWords>` when limited: what decides a word's vector. Loads the vectors when not yet loaded.
   */
  get fingerprint(): string {
    return this.load().fingerprint;
  }

  /** Reads the word vectors now (else on first use): about 50 ms for the shipped file. */
  load(): { vectors: WordVectors; projection: Float64Array; fingerprint: string } {
    if (this.loaded) return this.loaded;
    const vectors =
      typeof this.source === 'object'
        ? this.source
        : loadWordVectors(this.source ?? defaultWordVectorsPath());
    const limited = Number.isFinite(this.options.maxWords) ? `;n=${this.options.maxWords}` : '';
    this.loaded = {
      vectors,
      projection: projectionMatrix(vectors.dim),
      fingerprint: `${this.name}@1;${vectors.sha256.slice(0, 16)};s=${this.semanticWeight}${limited}`,
    };
    return this.loaded;
  }

  async encode(texts: string[], mode: EncodeMode): Promise<MultiVector[]> {
    return texts.map((text) => this.encodeOne(text, mode));
  }

  /** Synchronous form of `encode` for one text. */
  encodeOne(text: string, mode: EncodeMode): MultiVector {
    const tokens = this.tokensOf(text, mode);
    const vectors = new Float32Array(tokens.length * TOKEN_DIM);
    const binary = new Uint8Array(tokens.length * BINARY_BYTES);
    for (let t = 0; t < tokens.length; t++) {
      const token = tokens[t]!;
      this.cache.copyInto(token, vectors, binary, t, mode === 'query' ? this.queryWeight(token) : 1);
    }
    return { tokens: tokens.length, vectors, binary };
  }

  /** The unit-length vector of one token (a copy). */
  tokenVector(token: string): Float32Array {
    return this.cache.vector(token);
  }

  /** The frequency rank of a word among the vectors' words (0 = most frequent); undefined when unknown. */
  rankOf(token: string): number | undefined {
    const row = this.load().vectors.rows.get(token);
    return row !== undefined && row < this.options.maxWords ? row : undefined;
  }

  /** A query token's weight (its row's length): rarer words weigh more. */
  queryWeight(token: string): number {
    const { weightFloor, weightFrom, weightTo } = this.options;
    if (weightFloor === 1) return 1;
    const rank = this.rankOf(token);
    if (rank === undefined) return 1;
    const at =
      (Math.log(rank + 1) - Math.log(weightFrom + 1)) / (Math.log(weightTo + 1) - Math.log(weightFrom + 1));
    return Math.min(1, Math.max(weightFloor, weightFloor + (1 - weightFloor) * at));
  }

  /**
   * Distinct tokens in order of first occurrence; beyond the mode's cap, the rarest of them (unknown words
   * first, then by descending frequency rank) in order of first occurrence. Queries drop common words.
   */
  tokensOf(text: string, mode: EncodeMode): string[] {
    const cap = mode === 'query' ? this.maxQueryTokens : this.maxDocumentTokens;
    let tokens = [...new Set(tokenize(text))];
    if (mode === 'query' && this.options.commonWords > 0) {
      const rare = tokens.filter(
        (token) => (this.rankOf(token) ?? Number.POSITIVE_INFINITY) >= this.options.commonWords,
      );
      if (rare.length > 0) tokens = rare;
    }
    if (tokens.length <= cap) return tokens;
    const rarity = (token: string) => this.rankOf(token) ?? Number.POSITIVE_INFINITY;
    const kept = new Set(
      tokens
        .map((token, position) => ({ token, position, rank: rarity(token) }))
        .sort((a, b) => b.rank - a.rank || a.position - b.position)
        .slice(0, cap)
        .map(({ token }) => token),
    );
    return tokens.filter((token) => kept.has(token));
  }

  private compute(token: string, out: Float32Array): void {
    this.lexical.compute(token, out);
    const { vectors, projection } = this.load();
    const row = vectors.rows.get(token);
    if (row === undefined || row >= this.options.maxWords || this.semanticWeight === 0) return;
    const { dim, values, scales } = vectors;
    const semantic = this.semantic.fill(0);
    const scale = scales[row]!;
    for (let r = 0; r < TOKEN_DIM; r++) {
      let sum = 0;
      for (let c = 0, v = row * dim; c < dim; c++, v++) sum += projection[r * dim + c]! * values[v]!;
      semantic[r] = sum * scale;
    }
    unit(semantic);
    const a = Math.sqrt(this.semanticWeight);
    const b = Math.sqrt(1 - this.semanticWeight);
    for (let i = 0; i < TOKEN_DIM; i++) out[i] = a * semantic[i]! + b * out[i]!;
    unit(out);
  }
}
