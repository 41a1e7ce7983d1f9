/**
 * The recursive synthesis module of deep research (document 3: `rlm_start`, one ProgressEvent per iteration,
 * `rlm_complete`, on the run's own task): the partial answers the `synthesize` phase drew from batches of
 * hits are merged by the LLM in groups, level by level, until one answer remains. Each level is one
 * iteration; a run whose hits fit one batch has one partial answer and merges nothing.
 */
import type { AgentRun } from '../agent';

export interface PartialAnswer {
  answer: string;
  /** Ids of the hits the answer rests on. */
  sources: string[];
}

/** Partial answers one merge takes at most. */
export const MERGE_FAN_IN = 4;

/** Iterations (levels of merges) that reduce `count` partial answers to one. */
export function mergeLevels(count: number, fanIn = MERGE_FAN_IN): number {
  let levels = 0;
  for (let left = count; left > 1; left = Math.ceil(left / fanIn)) levels++;
  return levels;
}

/**
 * Merges `partials` into one answer with `merge` (one LLM call a group), reporting the module's events on
 * the run's task; a cancellation stops it between iterations. Undefined when there is nothing to merge.
 */
export async function recursiveSynthesis(
  run: Pick<AgentRun, 'report' | 'progress' | 'checkpoint'>,
  partials: PartialAnswer[],
  /** `last`: the merge of the last iteration, whose answer is the final one. */
  merge: (group: PartialAnswer[], iteration: number, last: boolean) => Promise<PartialAnswer>,
): Promise<{ answer?: PartialAnswer; iterations: number }> {
  const total = mergeLevels(partials.length);
  await run.report('rlm_start', `${partials.length} partial answers, ${total} iterations`);
  let level = partials;
  for (let iteration = 1; iteration <= total; iteration++) {
    run.checkpoint();
    const groups = Array.from({ length: Math.ceil(level.length / MERGE_FAN_IN) }, (_, i) =>
      level.slice(i * MERGE_FAN_IN, (i + 1) * MERGE_FAN_IN),
    );
    level = await Promise.all(
      groups.map((group) =>
        group.length === 1 ? Promise.resolve(group[0]!) : merge(group, iteration, iteration === total),
      ),
    );
    await run.progress(iteration, total, 'rlm_synthesis', { iteration, partials: level.length });
  }
  await run.report('rlm_complete', `${total} iterations`);
  return { answer: level[0], iterations: total };
}
