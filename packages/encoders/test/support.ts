/** Helpers shared by the encoder tests: vector maths and deterministic rows. */
import type { MultiVector } from '../src/index';
import { TOKEN_DIM } from '../src/index';

export function dot(a: Float32Array, b: Float32Array, aOffset = 0, bOffset = 0, dim = a.length): number {
  let sum = 0;
  for (let i = 0; i < dim; i++) sum += a[aOffset + i]! * b[bOffset + i]!;
  return sum;
}

/** Late-interaction score: Σ over query tokens of the best dot product with any document token. */
export function maxSim(query: MultiVector, doc: MultiVector): number {
  let total = 0;
  for (let q = 0; q < query.tokens; q++) {
    let best = Number.NEGATIVE_INFINITY;
    for (let d = 0; d < doc.tokens; d++) {
      best = Math.max(best, dot(query.vectors, doc.vectors, q * TOKEN_DIM, d * TOKEN_DIM, TOKEN_DIM));
    }
    total += doc.tokens ? best : 0;
  }
  return total;
}

export function rowNorms(vectors: Float32Array, dim: number): number[] {
  const norms: number[] = [];
  for (let start = 0; start < vectors.length; start += dim) {
    norms.push(Math.sqrt(dot(vectors, vectors, start, start, dim)));
  }
  return norms;
}

/** A deterministic non-normalized row of `dim` floats whose signs alternate in a known pattern. */
export function patternRow(seed: number, dim: number): number[] {
  return Array.from({ length: dim }, (_, i) => ((i * 7 + seed) % 5) - 2 + 0.5);
}
