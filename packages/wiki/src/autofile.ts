/**
 * Auto-filing (document 3): a completed agent run is saved to the tenant's wiki when it has 3 or more
 * extracted entities, comes from the detailed report or deep research agent, or spans 4 or more
 * conversation turns. It runs after the answer, off its path (the agents' completed-run worker): it never
 * slows or fails the run. Filing one run again (a redelivered message) writes nothing more.
 */
import { log, type TenantId } from '@tessera/core';
import type { GuardedTenant } from '@tessera/tenancy';
import { answerText } from './answer';
import { saveSessions, type WikiDeps } from './service';

export const FILING_AGENTS: ReadonlySet<string> = new Set(['detailed_report_agent', 'deep_research_agent']);
export const FILING_MIN_ENTITIES = 3;
export const FILING_MIN_TURNS = 4;

export interface CompletedRun {
  /** The run's id, when it has one: filing the same run twice saves one session. */
  runId?: string;
  /** When the run completed (the session's time); now when not given. */
  completedAt?: number;
  tenant: TenantId;
  /** The tenant as the run's recording guarded it, when it did (else the filing guards it). */
  guarded?: GuardedTenant;
  agentName: string;
  query: string;
  result: Record<string, unknown>;
  context: Record<string, unknown>;
}

/** Conversation turns of a run: the messages of its context's history (or `turns`), and its own query. */
export function turnsOf(context: Record<string, unknown>): number {
  const counted = [context.history, context.messages]
    .filter(Array.isArray)
    .map((list) => (list as unknown[]).length + 1);
  const given = typeof context.turns === 'number' ? context.turns : 0;
  return Math.max(1, given, ...counted);
}

/** Entity names the result itself lists (`entities: [{text}]` or names). */
function listedEntities(result: Record<string, unknown>): string[] {
  const list = result.entities;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entity) => {
    if (typeof entity === 'string') return [entity];
    if (entity && typeof entity === 'object') {
      const value = entity as Record<string, unknown>;
      const name = value.text ?? value.name;
      return typeof name === 'string' ? [name] : [];
    }
    return [];
  });
}

/** Why the run is filed, or undefined when the rule does not hold. */
export function filingReason(agentName: string, entities: number, turns: number): string | undefined {
  if (FILING_AGENTS.has(agentName)) return `an answer of ${agentName}`;
  if (entities >= FILING_MIN_ENTITIES) return `${entities} entities`;
  if (turns >= FILING_MIN_TURNS) return `${turns} conversation turns`;
  return undefined;
}

/**
 * Files the run when the rule holds: the entities are those the result lists and those `tag` finds in the
 * query and the answer. Answers the saved session's slug, or undefined when the run is not filed.
 */
export async function autoFile(
  deps: WikiDeps,
  run: CompletedRun,
  tag: (text: string) => Promise<string[]>,
): Promise<string | undefined> {
  const [slug] = await autoFileAll(deps, [run], tag);
  return slug;
}

/**
 * Files the runs of one tenant for which the rule holds, in one write of its wiki (`saveSessions`). Answers
 * each run's session slug, or undefined for a run not filed.
 */
export async function autoFileAll(
  deps: WikiDeps,
  runs: readonly CompletedRun[],
  tag: (text: string) => Promise<string[]>,
): Promise<(string | undefined)[]> {
  if (runs.length === 0) return [];
  const tenants = new Set(runs.map((run) => run.tenant.full));
  if (tenants.size > 1) throw new Error(`Runs of ${tenants.size} tenants filed together`);
  const judged = await Promise.all(
    runs.map(async (run) => {
      const tagged = await tag(`${run.query}\n\n${answerText(run.result)}`.slice(0, 20_000));
      const entities = [...new Set([...listedEntities(run.result), ...tagged])];
      return { run, entities, reason: filingReason(run.agentName, entities.length, turnsOf(run.context)) };
    }),
  );
  const filed = judged.filter((judgement) => judgement.reason !== undefined);
  if (filed.length === 0) return runs.map(() => undefined);
  const first = filed[0]!.run;
  const saved = await saveSessions(
    deps,
    first.guarded ?? first.tenant.full,
    filed.map(({ run, entities }) => ({
      input: { query: run.query, response: run.result, entities, agent_name: run.agentName },
      once: run.runId ? { runId: run.runId, at: run.completedAt ?? deps.now() } : undefined,
    })),
  );
  const slugs = new Map(filed.map(({ run }, i) => [run, saved[i]!.slug]));
  for (const [i, { run, reason }] of filed.entries())
    log.info('agent run filed to the wiki', { tenant: run.tenant.full, slug: saved[i]!.slug, reason });
  return runs.map((run) => slugs.get(run));
}
