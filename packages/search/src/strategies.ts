/**
 * The nine ranking strategies. A first phase ranks the corpus; a second phase, when there is one, re-ranks
 * the first phase's top `RERANK_DEPTH`, which then precede the rest of the first-phase order.
 */
import { Search } from '@tessera/api';
import type { ContentIndex, QueryVectors, Scored } from './content-index';

export const RERANK_DEPTH = 100;

export const RankingStrategy = Search.RankingStrategy;
export type RankingStrategy = Search.RankingStrategy;

export type Phase = 'text' | 'float' | 'binary' | 'float_binary';

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

/** The two phases of a strategy that has a second one. */
export const phasesOf = (strategy: RankingStrategy) => phases[strategy];

/**
 * The weight λ of the second phase in the score that orders the first phase's top `RERANK_DEPTH`:
 * `λ·norm(second) + (1 − λ)·norm(first)`. Tuned on the development queries of the evaluation collections
 * (`npm run eval -- --tune`), never on their test queries; README "Hybrid scores" has the figures.
 */
export const SECOND_PHASE_WEIGHT: Record<RankingStrategy, number> = {
  bm25_only: 1,
  float_float: 1,
  binary_binary: 1,
  float_binary: 1,
  phased: 0.9,
  hybrid_float_bm25: 0.9,
  hybrid_binary_bm25: 0.9,
  hybrid_bm25_float: 0.2,
  hybrid_bm25_binary: 0.2,
};

/**
 * A phase's scores of the window's documents mapped to [0, 1]: BM25 divided by the window's best (a
 * document without the query's words scores 0), MaxSim scores min-max over the window (a document the
 * phase did not score gets 0).
 */
function normalized(
  phase: Phase,
  window: readonly Scored[],
  scores: ReadonlyMap<string, number>,
): Map<string, number> {
  const values = window.flatMap((s) => (scores.has(s.id) ? [scores.get(s.id)!] : []));
  const out = new Map<string, number>();
  if (values.length === 0) return out;
  const max = Math.max(...values);
  const min = phase === 'text' ? 0 : Math.min(...values);
  for (const s of window) {
    const value = scores.get(s.id);
    out.set(
      s.id,
      value === undefined || max === min ? (value === undefined ? 0 : 1) : (value - min) / (max - min),
    );
  }
  return out;
}

/**
 * The window (the first phase's top documents, best first) ordered by the fused score
 * `weight·norm(second) + (1 − weight)·norm(first)`, ties in first-phase order.
 */
export function fuse(
  phasesOfStrategy: readonly [Phase, Phase?],
  window: readonly Scored[],
  second: readonly Scored[],
  weight: number,
): Scored[] {
  const [firstPhase, secondPhase] = phasesOfStrategy;
  const first = normalized(firstPhase, window, new Map(window.map((s) => [s.id, s.score])));
  const rescored = normalized(secondPhase!, window, new Map(second.map((s) => [s.id, s.score])));
  const order = new Map(window.map((s, i) => [s.id, i]));
  return window
    .map((s) => ({ id: s.id, score: weight * (rescored.get(s.id) ?? 0) + (1 - weight) * first.get(s.id)! }))
    .sort((a, b) => b.score - a.score || order.get(a.id)! - order.get(b.id)!);
}

/**
 * The phase scores of a two-phase strategy: the first phase's ranking (at least `RERANK_DEPTH` deep)
 * and the second phase's scores of its top `RERANK_DEPTH`.
 */
export async function phaseScores(
  target: Target,
  strategy: RankingStrategy,
  query: StrategyQuery,
  depth: number,
): Promise<{ first: Scored[]; second: Scored[] }> {
  const [first, second] = phases[strategy];
  if (!second) return { first: await runPhase(target, first, query, depth), second: [] };
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
  return { first: firstPhase, second: await secondPhase };
}

/**
 * Ranks the target's documents for the query; at most `topK` results, best first. A second phase orders
 * the first phase's top `RERANK_DEPTH` by both phases' normalized scores (`fuse`), which then precede the
 * rest of the first-phase order.
 */
export async function rank(
  target: Target,
  strategy: RankingStrategy,
  query: StrategyQuery,
  topK: number,
  secondWeight = SECOND_PHASE_WEIGHT[strategy],
): Promise<Scored[]> {
  const [first, second] = phases[strategy];
  if (!second) return runPhase(target, first, query, topK);
  const depth = Math.max(topK, RERANK_DEPTH);
  const scores = await phaseScores(target, strategy, query, depth);
  const window = scores.first.slice(0, RERANK_DEPTH);
  return [
    ...fuse(phases[strategy], window, scores.second, secondWeight),
    ...scores.first.slice(RERANK_DEPTH),
  ].slice(0, topK);
}
