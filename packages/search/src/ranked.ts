/** The best-scoring documents of a code cache, kept in a min-heap while every candidate is scored. */
import type { CodeCache } from './code-cache';
import type { Scored } from './content-index';

/** Documents by number with their scores, best first. */
export interface Ranked {
  docs: Int32Array;
  scores: Float64Array;
}

export const scoredOf = (codes: CodeCache, ranked: Ranked): Scored[] =>
  Array.from(ranked.docs, (doc, i) => ({ id: codes.ids[doc]!, score: ranked.scores[i]! }));

/** The `limit` best-scoring documents (all when `docs` is undefined), kept in a min-heap. */
export function best(
  codes: CodeCache,
  docs: Int32Array | undefined,
  limit: number,
  /** The score of a document, the `i`th of those scored. */
  score: (doc: number, i: number) => number,
): Ranked {
  const heapScores = new Float64Array(limit);
  const heapDocs = new Int32Array(limit);
  let size = 0;
  const worse = (i: number, j: number) =>
    heapScores[i]! < heapScores[j]! ||
    (heapScores[i] === heapScores[j] && codes.ids[heapDocs[i]!]! > codes.ids[heapDocs[j]!]!);
  const swap = (i: number, j: number) => {
    [heapScores[i], heapScores[j]] = [heapScores[j]!, heapScores[i]!];
    [heapDocs[i], heapDocs[j]] = [heapDocs[j]!, heapDocs[i]!];
  };
  const consider = (doc: number, i: number) => {
    const value = score(doc, i);
    if (size < limit) {
      heapScores[size] = value;
      heapDocs[size] = doc;
      for (let i = size++; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
      return;
    }
    if (value < heapScores[0]! || (value === heapScores[0] && codes.ids[doc]! > codes.ids[heapDocs[0]!]!))
      return;
    heapScores[0] = value;
    heapDocs[0] = doc;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && worse(l, m)) m = l;
      if (r < size && worse(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  };
  if (limit > 0) {
    if (docs) for (let i = 0; i < docs.length; i++) consider(docs[i]!, i);
    else for (let doc = 0; doc < codes.ids.length; doc++) consider(doc, doc);
  }
  // Best first, ties by id (as `top` orders).
  const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => {
    const idA = codes.ids[heapDocs[a]!]!;
    const idB = codes.ids[heapDocs[b]!]!;
    return heapScores[b]! - heapScores[a]! || (idA < idB ? -1 : idA > idB ? 1 : 0);
  });
  return {
    docs: Int32Array.from(order, (i) => heapDocs[i]!),
    scores: Float64Array.from(order, (i) => heapScores[i]!),
  };
}
