/** What an agent is: a name and a run over one task, with the phase boundaries where a run may stop. */
import type { Agents } from '@tessera/api';
import type { GuardedTenant } from '@tessera/tenancy';
import type { AgentsDeps } from './deps';

export type ProcessContext = Agents.ProcessRequest['context'];

export interface AgentRun {
  tenant: GuardedTenant['tenant'];
  query: string;
  context: ProcessContext;
  /** Aborted when the request running the task ends (its time is up). */
  signal: AbortSignal;
  /** The tenant's instructions ('' when none), put in every system prompt this run sends. */
  instructions: string;
  /** The tenant's memories of this agent relevant to a query, best first. */
  recall(
    query: string,
    limit?: number,
  ): Promise<Array<{ memory_id: string; agent_name: string; content: string }>>;
  /**
   * A phase boundary: reported on the run's workflow task when there is one; throws when the run was
   * cancelled or its request ended.
   */
  phase(name: string, message?: string): Promise<void>;
  /** Runs another agent for the same tenant (the gateway's routed agent), through the same checks. */
  dispatch(name: Agents.AgentName, query: string, context: ProcessContext): Promise<Record<string, unknown>>;
}

export interface Agent {
  readonly name: Agents.AgentName;
  run(deps: AgentsDeps, run: AgentRun): Promise<Record<string, unknown>>;
}

/** A system prompt with the tenant's instructions after the agent's own (unchanged when there are none). */
export function systemPrompt(run: Pick<AgentRun, 'instructions'>, prompt: string): string {
  const instructions = run.instructions.trim();
  return instructions ? `${prompt}\n\nInstructions of the tenant (follow them):\n${instructions}` : prompt;
}
