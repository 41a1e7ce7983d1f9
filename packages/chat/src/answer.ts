/**
 * What a chat turn shows of an agent's result besides its answer text (`answerText`, shared with the wiki
 * and jobs in `@tessera/wiki`): its hits, its orchestration's steps, and stream pieces.
 */

type Result = Record<string, unknown>;

const isRecord = (value: unknown): value is Result =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The retrieval hits of a result (the gateway's routed result included), for AG-UI's state snapshot. */
export function hitsOf(result: Result): Result[] {
  if (Array.isArray(result.results)) return result.results.filter(isRecord);
  if (isRecord(result.result)) return hitsOf(result.result);
  return [];
}

export interface StepCall {
  id: string;
  agent: string;
  query: string;
  result: unknown;
}

/** The sub-agent calls of an orchestration: its plan's steps with their results, when the result has them. */
export function stepsOf(result: Result): StepCall[] {
  const orchestration = isRecord(result.orchestration_result) ? result.orchestration_result : undefined;
  if (!orchestration) return isRecord(result.result) ? stepsOf(result.result) : [];
  const plan = isRecord(orchestration.plan) ? orchestration.plan : {};
  const steps = Array.isArray(plan.steps) ? plan.steps.filter(isRecord) : [];
  const results = orchestration.step_results;
  return steps.map((step, i) => {
    const byIndex = Array.isArray(results) ? results[i] : undefined;
    const byName =
      isRecord(results) && !Array.isArray(results)
        ? (results[String(step.step_id ?? i)] ?? results[String(step.agent_name)])
        : undefined;
    return {
      id: `step_${i}`,
      agent: String(step.agent_name ?? 'agent'),
      query: String(step.query ?? ''),
      result: byIndex ?? byName ?? null,
    };
  });
}

/** `text` cut into pieces of about `size` characters at spaces, for streamed deltas. */
export function pieces(value: string, size = 48): string[] {
  const out: string[] = [];
  let rest = value;
  while (rest.length > size) {
    const cut = rest.lastIndexOf(' ', size);
    const at = cut > size / 2 ? cut + 1 : size;
    out.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  if (rest) out.push(rest);
  return out;
}
