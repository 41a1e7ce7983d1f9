/**
 * Dispatch of one task to one agent (`POST /agents/{name}/process`): the registry's checks (unknown 404,
 * disabled 409, not built 501), the tenant guard, and the run, reported as a workflow task when it is one
 * (document 3's run outcomes: complete, cancelled, error; a request that ends first cancels its run).
 */
import type { Agents, Knowledge } from '@tessera/api';
import { systemConfig } from '@tessera/config';
import { BadRequestError, ConflictError, HttpError, log, parseTenantId } from '@tessera/core';
import {
  newWorkflowId,
  runWorkflow,
  TaskCancelledError,
  TaskEventsUnavailableError,
  type TaskReporter,
} from '@tessera/events';
import { recallMemories, tenantInstructions } from '@tessera/memories';
import { type GuardedTenant, incarnationOf, requireTenant } from '@tessera/tenancy';
import type { Agent, AgentRun, ProcessContext, TextSink } from './agent';
import { AGENTS } from './agents/index';
import { knowledgeQuery, sameOrganization } from './agents/knowledge';
import { completedRunMessage, InProcessCompletedRuns } from './completed-runs';
import type { AgentsDeps } from './deps';
import { type AgentsEnv, agentsEnv } from './env';
import { AgentNotAvailableError, answerOf, RunTimedOutError } from './errors';
import { AgentRegistry, LONG_RUN_AGENTS, type RegisteredAgent } from './registry';

/** Agents whose every run is a workflow task (document 3's producers). */
export const WORKFLOW_AGENTS: ReadonlySet<string> = LONG_RUN_AGENTS;

export interface DispatchOptions {
  /** The base URL the request reached: every agent's URL unless the API's URL is set or an override. */
  baseUrl: string;
  /** Aborted when the request running the task ends (a Lambda's time running out, its client gone). */
  signal?: AbortSignal;
  /**
   * Streams the answer: the run's final answer text as its LLM writes it (`AgentRun.onText`), for the run and
   * the agents it runs in process (the gateway's routed agent), not for sub-agents called over HTTP.
   */
  onText?: TextSink;
}

/**
 * The base URL of the agents' own endpoints: the HTTP API's URL when the deployment sets one (a function
 * behind a Function URL sees that URL as its host, not the API), else the URL the request reached.
 */
export function agentsBaseUrl(settings: Pick<AgentsEnv, 'apiUrl'>, requestBaseUrl: string): string {
  return (settings.apiUrl ?? requestBaseUrl).replace(/\/+$/, '');
}

/** The registry of this deployment now: defaults and the system configuration's overrides. */
export async function registeredAgents(deps: AgentsDeps, baseUrl: string): Promise<RegisteredAgent[]> {
  const system = await systemConfig(deps.config);
  const settings = deps.settings ?? agentsEnv;
  return deps.registry.resolve(system.agents, agentsBaseUrl(settings, baseUrl), settings.agentLongRunUrl);
}

/** The agent of `name`, if it may run: 404 unknown, 409 disabled, 501 not built. */
function runnable(agents: RegisteredAgent[], name: string) {
  const entry = AgentRegistry.find(agents, name);
  if (!entry.enabled) throw new ConflictError(`Agent '${name}' is disabled`);
  const agent = AGENTS.get(entry.name);
  if (!agent) throw new AgentNotAvailableError(entry.name);
  return { entry, agent };
}

/** Resolves when `signal` aborts (never when there is none). */
function whenAborted(signal: AbortSignal): Promise<'aborted'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
}

/**
 * Dispatches `request` to the agent `name`. `options.guarded` is the request's tenant as its caller's guard
 * read it in the same request (a conversation's turn), else the dispatch guards it.
 */
export async function processAgent(
  deps: AgentsDeps,
  name: string,
  request: Agents.ProcessRequest,
  options: DispatchOptions & { guarded?: GuardedTenant },
): Promise<Agents.ProcessResponse> {
  const agents = await registeredAgents(deps, options.baseUrl);
  const { entry, agent } = runnable(agents, name);
  if (request.agent_name !== undefined && request.agent_name !== name) {
    throw new BadRequestError(`The body names agent '${request.agent_name}', the path '${name}'`);
  }
  const guarded =
    options.guarded && options.guarded.tenant.full === parseTenantId(request.context.tenant_id).full
      ? options.guarded
      : await requireTenant(deps.content.tenancy, request.context.tenant_id);
  const instructions = instructionsOf(deps, guarded);
  const scope: RunScope = { deps, agents, guarded, instructions, onText: options.onText };
  const budget = AbortSignal.timeout(entry.timeout * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
  const ended = () =>
    new RunTimedOutError(
      `Agent '${name}' did not finish within the request's time (its timeout is ${entry.timeout} s)`,
    );

  const workflowId = request.context.workflow_id;
  if (!WORKFLOW_AGENTS.has(entry.name) && workflowId === undefined) {
    const run = newRun(scope, entry.name, request.query, request.context, signal);
    try {
      const outcome = await Promise.race([agent.run(deps, run), whenAborted(signal)]);
      if (outcome === 'aborted') throw ended();
      await completed(deps, guarded, entry.name, request, outcome);
      return { status: 'completed', agent: entry.name, result: outcome as Agents.AgentResultValue };
    } catch (error) {
      throw answerOf(error);
    }
  }

  const outcome = await workflowRun(scope, entry.name, agent, request.query, request.context, signal, {
    workflowId,
  });
  // The request ended first: the run's events say so (a cancelled status); the caller gets no result.
  if (outcome.status === 'cancelled' && signal.aborted && outcome.message.endsWith(': the request ended')) {
    throw ended();
  }
  if (outcome.status === 'completed') {
    await completed(deps, guarded, entry.name, request, outcome.result as Record<string, unknown>);
  }
  return outcome as Agents.ProcessResponse;
}

type WorkflowOutcome =
  | { status: 'completed'; agent: Agents.AgentName; result: Agents.AgentResultValue }
  | { status: 'cancelled'; agent: string; workflow_id: string; message: string };

/**
 * One run reported as a workflow task of its own (document 3's `workflow_run`): the task is opened under
 * `workflowId` (else a new `workflow_<hex>`), the run reports its phases on it, and the dispatcher its
 * outcome. A store that refuses before the run began answers 503 `task_events_unavailable`.
 */
async function workflowRun(
  scope: RunScope,
  agentName: Agents.AgentName,
  agent: Agent,
  query: string,
  context: ProcessContext,
  signal: AbortSignal,
  options: { workflowId?: string; parent?: TaskReporter } = {},
): Promise<WorkflowOutcome> {
  const id = options.workflowId ?? newWorkflowId();
  let started = false;
  try {
    return await runWorkflow(
      scope.deps.events,
      {
        agent: agentName,
        tenantId: scope.guarded.tenant.full,
        workflowId: id,
        signal,
        parent: options.parent,
      },
      async (reporter) => {
        started = true;
        const run = newRun(scope, agentName, query, context, signal, reporter, id);
        const result = await agent.run(scope.deps, run);
        return { status: 'completed' as const, agent: agentName, result: result as Agents.AgentResultValue };
      },
    );
  } catch (error) {
    // The store refused before the run began (the task could not be opened, or its first event written).
    if (!started && !(error instanceof HttpError)) throw new TaskEventsUnavailableError(id, error);
    throw answerOf(error);
  }
}

/**
 * Hands a completed run to `deps.completedRuns` (its memory and wiki filing), waiting only for the hand-over
 * (one queue message), which a failure of is logged, never the run's.
 */
async function completed(
  deps: AgentsDeps,
  guarded: GuardedTenant,
  agentName: string,
  request: Agents.ProcessRequest,
  result: Record<string, unknown>,
): Promise<void> {
  const message = completedRunMessage({
    tenant_id: guarded.tenant.full,
    tenant_incarnation: incarnationOf(guarded.record),
    agent_name: agentName,
    query: request.query,
    context: request.context,
    result,
  });
  const sink = deps.completedRuns ?? new InProcessCompletedRuns({ memories: deps.memories });
  try {
    await sink.send(message);
  } catch (error) {
    log.warn('could not queue a completed run for its memory and filing', {
      tenant: guarded.tenant.full,
      agent: agentName,
      error: (error as Error).message,
    });
  }
}

/**
 * Runs an agent inside a workflow task its caller reports (a scheduled job's run): the registry's checks, the
 * tenant guard and the agent's timeout, then the run with `reporter`. Errors propagate, for the caller's
 * `runWorkflow` to report as the run's ErrorEvent.
 */
export async function runAgentTask(
  deps: AgentsDeps,
  name: string,
  query: string,
  context: ProcessContext,
  reporter: TaskReporter,
  options: DispatchOptions,
): Promise<Record<string, unknown>> {
  const agents = await registeredAgents(deps, options.baseUrl);
  const { entry, agent } = runnable(agents, name);
  const guarded = await requireTenant(deps.content.tenancy, context.tenant_id);
  const instructions = instructionsOf(deps, guarded);
  const scope: RunScope = { deps, agents, guarded, instructions, onText: options.onText };
  const budget = AbortSignal.timeout(entry.timeout * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
  const run = newRun(scope, entry.name, query, context, signal, reporter);
  const outcome = await Promise.race([agent.run(deps, run), whenAborted(signal)]);
  if (outcome === 'aborted') {
    throw new RunTimedOutError(`Agent '${name}' did not finish within its timeout of ${entry.timeout} s`);
  }
  return outcome;
}

/**
 * Runs a knowledge agent for its knowledge route (document 1): the agent is bound explicitly, whatever its
 * `enabled` default, for the tenant of the path, with the route's body as its task context. A body naming
 * other tenants is checked against the caller's organization before anything is read (403).
 */
export async function runKnowledgeAgent(
  deps: AgentsDeps,
  name: Knowledge.KnowledgeAgentName,
  tenantId: string,
  body: Record<string, unknown>,
  options: DispatchOptions,
): Promise<Record<string, unknown>> {
  const named = body.other_tenant_ids ?? body.tenant_ids;
  if (Array.isArray(named)) sameOrganization(parseTenantId(tenantId), named as string[]);
  const agents = await registeredAgents(deps, options.baseUrl);
  const entry = AgentRegistry.find(agents, name);
  const agent = AGENTS.get(entry.name);
  if (!agent) throw new AgentNotAvailableError(entry.name);
  const guarded = await requireTenant(deps.content.tenancy, tenantId);
  // Knowledge agents prompt no LLM: the tenant's instructions are not read.
  const scope: RunScope = { deps, agents, guarded, instructions: async () => '' };
  const budget = AbortSignal.timeout(entry.timeout * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
  const context = { ...body, tenant_id: guarded.tenant.full };
  const run = newRun(scope, entry.name, knowledgeQuery(entry.name, body), context, signal);
  const outcome = await Promise.race([agent.run(deps, run), whenAborted(signal)]);
  if (outcome === 'aborted') {
    throw new RunTimedOutError(`Agent '${name}' did not finish within its timeout of ${entry.timeout} s`);
  }
  return outcome;
}

/**
 * What every run of one request shares: the registry as resolved, the tenant and its instructions, and where
 * the answer's text streams to.
 */
interface RunScope {
  deps: AgentsDeps;
  agents: RegisteredAgent[];
  guarded: GuardedTenant;
  instructions: () => Promise<string>;
  onText?: TextSink;
}

/** The tenant's instructions, read once for every run of the request, and only when one prompts a model. */
function instructionsOf(deps: AgentsDeps, guarded: GuardedTenant): () => Promise<string> {
  let read: Promise<string> | undefined;
  return () => {
    if (!read) {
      const reading = tenantInstructions(deps.memories, guarded.tenant.full);
      // A read that failed is tried again by the next prompt.
      reading.catch(() => {
        if (read === reading) read = undefined;
      });
      read = reading;
    }
    return read;
  };
}

function newRun(
  scope: RunScope,
  agentName: Agents.AgentName,
  query: string,
  context: ProcessContext,
  signal: AbortSignal,
  reporter?: TaskReporter,
  workflowId?: string,
): AgentRun {
  const { deps, agents, guarded } = scope;
  const checkpoint = () => {
    if (signal.aborted) throw new TaskCancelledError('the request ended');
    if (reporter?.cancelled) throw new TaskCancelledError(reporter.reason ?? 'cancelled');
  };
  const run: AgentRun = {
    tenant: guarded.tenant,
    guarded,
    query,
    context,
    agents,
    workflowId,
    signal,
    ...(scope.onText ? { onText: scope.onText } : {}),
    instructions: scope.instructions,
    recall: (text, limit) => recallMemories(deps.memories, guarded, agentName, text, limit),
    async phase(phase, message) {
      if (signal.aborted) throw new TaskCancelledError('the request ended');
      if (reporter) await reporter.phase(phase, message);
    },
    async report(phase, message) {
      if (reporter) await reporter.report({ type: 'status', state: 'working', phase, message });
    },
    async progress(current, total, step, details = {}) {
      if (!reporter) return;
      const percentage = total > 0 ? Math.round((current / total) * 10_000) / 100 : 0;
      await reporter.report({ type: 'progress', current, total, percentage, step, details });
    },
    async artifact(type, data) {
      if (reporter) await reporter.report({ type: 'artifact', artifact_type: type, data, is_partial: false });
    },
    checkpoint,
    async dispatch(name, subQuery, subContext) {
      const { entry, agent } = runnable(agents, name);
      if (WORKFLOW_AGENTS.has(entry.name)) {
        // An orchestration or deep research is a workflow task of its own, whoever starts it.
        const { workflow_id: _, ...rest } = subContext;
        // A cancel of this run's own workflow cancels the one it starts.
        const outcome = await workflowRun(scope, entry.name, agent, subQuery, rest, signal, {
          parent: reporter,
        });
        if (outcome.status === 'completed') return outcome.result as Record<string, unknown>;
        // The request ended, or this run was cancelled with it: this run stops too.
        checkpoint();
        return outcome;
      }
      const sub = newRun(scope, entry.name, subQuery, subContext, signal, reporter, workflowId);
      try {
        return await agent.run(deps, sub);
      } catch (error) {
        throw answerOf(error);
      }
    },
  };
  return run;
}
