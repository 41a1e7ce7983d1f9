/**
 * Auto-filing (document 3): a completed agent run is saved to the tenant's wiki when it has 3 or more
 * extracted entities, comes from the detailed report or deep research agent, or spans 4 or more
 * conversation turns. It runs after the answer, off its path (the agents' completed-run worker): it never
 * slows or fails the run. Filing one run again (a redelivered message) writes nothing more.
 */
import { log, type TenantId } from '@tessera/core';
import type { GuardedTenant } from '@tessera/tenancy';
import { answerText } from './answer';
import { saveSession, type WikiDeps } from './service';

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
  const tagged = await tag(`${run.query}\n\n${answerText(run.result)}`.slice(0, 20_000));
  const entities = [...new Set([...listedEntities(run.result), ...tagged])];
  const reason = filingReason(run.agentName, entities.length, turnsOf(run.context));
  if (!reason) return undefined;
  const saved = await saveSession(
    deps,
    run.guarded ?? run.tenant.full,
    { query: run.query, response: run.result, entities, agent_name: run.agentName },
    run.runId ? { runId: run.runId, at: run.completedAt ?? deps.now() } : undefined,
  );
  log.info('agent run filed to the wiki', { tenant: run.tenant.full, slug: saved.slug, reason });
  return saved.slug;
}
