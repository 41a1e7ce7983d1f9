/** What an agent is: a name and a run over one task, with the phase boundaries where a run may stop. */
import type { Agents } from '@tessera/api';
import type { JsonCallOptions } from '@tessera/llm';
import type { GuardedTenant } from '@tessera/tenancy';
import type { AgentsDeps } from './deps';
import type { RegisteredAgent } from './registry';

export type ProcessContext = Agents.ProcessRequest['context'];

export interface AgentRun {
  tenant: GuardedTenant['tenant'];
  /** The tenant as the run's request guarded it (its record), for the domain calls the run makes. */
  guarded: GuardedTenant;
  query: string;
  context: ProcessContext;
  /**
   * The tenant's instructions ('' when none), put in every system prompt this run sends: read on the first
   * prompt of the request's runs, so a run that prompts no model reads none.
   */
  instructions(): Promise<string>;
  /** The tenant's memories of this agent relevant to a query, best first. */
  recall(
    query: string,
    limit?: number,
  ): Promise<Array<{ memory_id: string; agent_name: string; content: string }>>;
  /** The registry of this deployment as the run's request resolved it (urls, enabled agents). */
  agents: RegisteredAgent[];
  /** The run's workflow task, when it is one. */
  workflowId?: string;
  /** Aborted when the request running the task ends (its time is up, its client went away). */
  signal: AbortSignal;
  /**
   * Set when the run's caller streams the answer (chat, AG-UI): the text of the agent's final answer, as its
   * LLM writes it (see `answerCall`). The result is the same with or without it.
   */
  onText?: TextSink;
  /**
   * A phase boundary: reported on the run's workflow task when there is one; throws when the run was
   * cancelled or its request ended.
   */
  phase(name: string, message?: string): Promise<void>;
  /** A phase reported without a cancellation check (document 3: `executing` and `complete`). */
  report(name: string, message?: string): Promise<void>;
  /** A ProgressEvent on the run's workflow task (none without one). */
  progress(current: number, total: number, step: string, details?: Record<string, unknown>): Promise<void>;
  /** An ArtifactEvent on the run's workflow task (none without one): what an audit explanation reads. */
  artifact(type: string, data: unknown): Promise<void>;
  /** Throws when the run was cancelled or its request ended, reporting nothing. */
  checkpoint(): void;
  /** Runs another agent for the same tenant (the gateway's routed agent), through the same checks. */
  dispatch(name: Agents.AgentName, query: string, context: ProcessContext): Promise<Record<string, unknown>>;
}

/** Where a run publishes its answer's text as it is written: each delta once, in order. */
export type TextSink = (delta: string) => void;

export interface Agent {
  readonly name: Agents.AgentName;
  run(deps: AgentsDeps, run: AgentRun): Promise<Record<string, unknown>>;
}

/** The tenant's instructions ahead of an agent's own system prompt, when it has any. */
export async function systemPrompt(run: Pick<AgentRun, 'instructions'>, prompt: string): Promise<string> {
  const instructions = (await run.instructions()).trim();
  return instructions === '' ? prompt : `Instructions of this tenant:\n${instructions}\n\n${prompt}`;
}

/**
 * The options of the LLM call that writes a run's final answer, whose `field` is the answer's prose: aborted
 * with the run, and streamed into `run.onText` when the run's caller streams. Only that call streams: the
 * text of an intermediate call (a plan, a question) is not the answer.
 */
export function answerCall(run: Pick<AgentRun, 'signal' | 'onText'>, field: string): JsonCallOptions {
  return { signal: run.signal, ...(run.onText ? { text: { field, onText: run.onText } } : {}) };
}
