/** Ranking-quality metrics over one query's ranked ids and its set of relevant ids (graded relevance optional). */

export type Relevance = ReadonlySet<string> | ReadonlyMap<string, number>;

const gain = (relevance: Relevance, id: string): number =>
  relevance instanceof Map ? (relevance.get(id) ?? 0) : (relevance as ReadonlySet<string>).has(id) ? 1 : 0;

const gains = (relevance: Relevance): number[] =>
  relevance instanceof Map
    ? [...relevance.values()].filter((g) => g > 0)
    : Array((relevance as ReadonlySet<string>).size).fill(1);

/** 1/rank of the first relevant result within the top k, else 0. */
export function reciprocalRank(ranked: readonly string[], relevance: Relevance, k: number): number {
  const index = ranked.slice(0, k).findIndex((id) => gain(relevance, id) > 0);
  return index === -1 ? 0 : 1 / (index + 1);
}

/** Normalized discounted cumulative gain at k (gain / log2(rank + 1)). */
export function ndcg(ranked: readonly string[], relevance: Relevance, k: number): number {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + gain(relevance, id) / Math.log2(i + 2), 0);
  const ideal = gains(relevance)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Share of the relevant documents found in the top k. */
export function recall(ranked: readonly string[], relevance: Relevance, k: number): number {
  const total = gains(relevance).length;
  if (total === 0) return 0;
  return ranked.slice(0, k).filter((id) => gain(relevance, id) > 0).length / total;
}

/** Share of the top k that is relevant (k in the denominator, as the usual definition). */
export function precision(ranked: readonly string[], relevance: Relevance, k: number): number {
  return ranked.slice(0, k).filter((id) => gain(relevance, id) > 0).length / k;
}

/** Reciprocal rank fusion: score = Σ over rankings of 1 / (k + rank), rank counted from 1. */
export function reciprocalRankFusion(
  rankings: readonly (readonly string[])[],
  k = 60,
): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    for (const [index, id] of ranking.entries()) scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}
