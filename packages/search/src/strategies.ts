/**
 * The nine ranking strategies. A first phase ranks the corpus; a second phase, when there is one, re-ranks
 * the first phase's top `RERANK_DEPTH`, which then precede the rest of the first-phase order.
 */
import { Search } from '@tessera/api';
import type { ContentIndex, QueryVectors, Scored } from './content-index';

export const RERANK_DEPTH = 100;

export const RankingStrategy = Search.RankingStrategy;
export type RankingStrategy = Search.RankingStrategy;

type Phase = 'text' | 'float' | 'binary' | 'float_binary';

const phases: Record<RankingStrategy, [Phase, Phase?]> = {
  bm25_only: ['text'],
  float_float: ['float'],
  binary_binary: ['binary'],
  float_binary: ['float_binary'],
  phased: ['binary', 'float'],
  hybrid_float_bm25: ['float', 'text'],
  hybrid_binary_bm25: ['binary', 'text'],
  hybrid_bm25_float: ['text', 'float'],
  hybrid_bm25_binary: ['text', 'binary'],
};

export interface StrategyQuery {
  text: string;
  vectors: QueryVectors;
}

export interface Target {
  index: ContentIndex;
  /** The tenant schema (table) name. */
  schema: string;
  /** Full-text fields of the profile. */
  textFields: string[];
}

function runPhase(
  target: Target,
  phase: Phase,
  query: StrategyQuery,
  limit: number,
  ids?: readonly string[],
): Promise<Scored[]> {
  const { index, schema } = target;
  switch (phase) {
    case 'text':
      return index.bm25(schema, target.textFields, query.text, limit, ids);
    case 'float':
      return index.floatMaxSim(schema, query.vectors, limit, ids);
    case 'binary':
      return index.binaryMaxSim(schema, query.vectors, limit, ids);
    case 'float_binary':
      return index.floatBinaryMaxSim(schema, query.vectors, limit, ids);
  }
}

/** Ranks the target's documents for the query; at most `topK` results, best first. */
export async function rank(
  target: Target,
  strategy: RankingStrategy,
  query: StrategyQuery,
  topK: number,
): Promise<Scored[]> {
  const [first, second] = phases[strategy];
  if (!second) return runPhase(target, first, query, topK);
  const depth = Math.max(topK, RERANK_DEPTH);
  let firstPhase: Scored[];
  let secondPhase: Promise<Scored[]> | undefined;
  if (first === 'float') {
    // Float MaxSim knows the documents it scores exactly (its window's superset) before it reads their
    // vectors: the second phase scores all of them meanwhile. A document's second-phase score does not
    // depend on the other documents scored with it, so the window's scores are those it would get alone.
    firstPhase = await target.index.floatMaxSim(target.schema, query.vectors, depth, undefined, (pool) => {
      secondPhase = runPhase(target, second, query, pool.length, pool);
      // Awaited below unless the first phase fails.
      secondPhase.catch(() => undefined);
    });
  } else firstPhase = await runPhase(target, first, query, depth);
  const window = firstPhase.slice(0, RERANK_DEPTH);
  secondPhase ??= runPhase(
    target,
    second,
    query,
    window.length,
    window.map((s) => s.id),
  );
  const rescored = new Map((await secondPhase).map((s) => [s.id, s.score]));
  // Documents the second phase does not score (no text match) rank after those it does, in first-phase order.
  const order = new Map(window.map((s, i) => [s.id, i]));
  const reranked = window
    .map((s) => ({ id: s.id, score: rescored.get(s.id) ?? 0, matched: rescored.has(s.id) }))
    .sort(
      (a, b) =>
        Number(b.matched) - Number(a.matched) || b.score - a.score || order.get(a.id)! - order.get(b.id)!,
    )
    .map(({ id, score }) => ({ id, score }));
  return [...reranked, ...firstPhase.slice(RERANK_DEPTH)].slice(0, topK);
}
