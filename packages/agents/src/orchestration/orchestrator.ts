/**
 * The orchestrator (document 3): recalls the tenant's memories of it (`memory_context`), asks the tenant's
 * LLM once for a plan (`planning`: a strict json_schema whose agent field is an enum of the enabled agents),
 * normalizes the plan, runs its parallel groups one after another with each group's steps at once over HTTP
 * (`execution`, `retrieval_iteration` per group, `executing` per step), and aggregates the steps' results
 * into a final answer written by the LLM from what the steps found (`aggregating`, `complete`).
 * Cancellation is checked at each phase boundary but `executing` and `complete`, so before each group.
 */
import type { Agents } from '@tessera/api';
import { LlmCallError, LlmUnavailableError, shorten } from '@tessera/llm';
import { z } from 'zod';
import { type Agent, type AgentRun, answerCall, type ProcessContext, systemPrompt } from '../agent';
import type { AgentsDeps } from '../deps';
import { agentsEnv } from '../env';
import { callSubAgent } from './http';
import { NOT_PLANNABLE, normalizePlan, type Plan, PlannerAnswer, plannerFormat } from './plan';

/** Agents that work on `context.text`: a step of theirs after others reads what those found. */
const TEXT_AGENTS: ReadonlySet<string> = new Set([
  'summarizer_agent',
  'text_analysis_agent',
  'entity_extraction_agent',
]);
const UPSTREAM_CHARS = 8000;
const STEP_TEXT_CHARS = 1500;

export interface StepResult {
  step: number;
  agent_name: string;
  query: string;
  status: 'completed' | 'failed' | 'skipped' | 'cancelled';
  elapsed_ms: number;
  result?: Record<string, unknown>;
  error?: string;
}

/** The text a step's result offers the next steps and the aggregation: its answer, summary or hits. */
export function resultText(result: Record<string, unknown> | undefined): string {
  if (!result) return '';
  const parts: string[] = [];
  for (const key of ['final_answer', 'answer', 'summary', 'explanation']) {
    if (typeof result[key] === 'string' && result[key] !== '') parts.push(result[key] as string);
  }
  const hits = Array.isArray(result.results)
    ? (result.results as { document_id?: string; text?: string }[])
    : [];
  for (const hit of hits.slice(0, 5)) if (hit.text) parts.push(`[${hit.document_id}] ${hit.text}`);
  const report = result.report as { sections?: { heading: string; body: string }[] } | undefined;
  for (const section of report?.sections ?? []) parts.push(`${section.heading}: ${section.body}`);
  if (parts.length === 0) parts.push(JSON.stringify(result));
  return parts.join('\n');
}

const sourcesOf = (result: Record<string, unknown> | undefined): string[] =>
  Array.isArray(result?.sources) ? (result.sources as unknown[]).filter((s) => typeof s === 'string') : [];

const AGGREGATE_FORMAT = {
  name: 'orchestration_answer',
  schema: {
    type: 'object',
    properties: { final_answer: { type: 'string' } },
    required: ['final_answer'],
    additionalProperties: false,
  },
};

function planningPrompt(run: AgentRun, allowed: string[]): Promise<string> {
  const catalogue = run.agents
    .filter((agent) => allowed.includes(agent.name))
    .map((agent) => `- ${agent.name}: ${agent.description} (capabilities: ${agent.capabilities.join(', ')})`)
    .join('\n');
  return systemPrompt(
    run,
    [
      'You plan how agents answer a request. Answer a list of steps; each step names one agent, the query it gets, and',
      'depends_on: the indices (0-based) of earlier steps whose results it needs. Steps without dependencies run at',
      'the same time. Use as few steps as the request needs. The agents:',
      catalogue,
    ].join('\n'),
  );
}

async function plan(deps: AgentsDeps, run: AgentRun, memories: string[]) {
  const allowed = run.agents
    .filter((agent) => agent.enabled && agent.available && !NOT_PLANNABLE.has(agent.name))
    .map((agent) => agent.name);
  const user = [
    `Request: ${run.query}`,
    ...(memories.length > 0
      ? ['What earlier runs for this tenant learned:', ...memories.map((m) => `- ${m}`)]
      : []),
  ].join('\n');
  const raw = await deps.llm.json(run.tenant.full, {
    system: await planningPrompt(run, allowed),
    user,
    format: plannerFormat(allowed),
  });
  const answer = PlannerAnswer.safeParse(raw);
  if (!answer.success) {
    throw new LlmCallError(
      `The LLM answered JSON that does not match the orchestration plan schema: ${shorten(JSON.stringify(raw))}`,
    );
  }
  const normalized = normalizePlan(answer.data, {
    allowed: new Set(allowed),
    maxSteps: (deps.settings ?? agentsEnv).orchestratorMaxSteps,
    query: run.query,
  });
  if (normalized.plan.steps.length === 0) {
    const named = answer.data.steps.map((s) => s.agent_name).join(', ') || 'none';
    throw new LlmCallError(
      `The planner chose no agent this deployment can run (it named: ${shorten(named, 200)})`,
    );
  }
  return normalized;
}

async function runStep(run: AgentRun, planned: Plan, index: number, done: StepResult[]): Promise<StepResult> {
  const step = planned.steps[index]!;
  const base = { step: index, agent_name: step.agent_name, query: step.query };
  const failedDeps = step.depends_on.filter((dep) => done[dep]?.status !== 'completed');
  if (failedDeps.length > 0) {
    return {
      ...base,
      status: 'skipped',
      elapsed_ms: 0,
      error: `its dependencies ${failedDeps.join(', ')} did not complete`,
    };
  }
  const entry = run.agents.find((agent) => agent.name === step.agent_name)!;
  const context: ProcessContext = { ...run.context, tenant_id: run.context.tenant_id };
  delete context.workflow_id;
  // A sub-agent's call is no turn of the user's conversation: only the orchestrator's answer is stored.
  delete context.context_id;
  if (run.workflowId) context.orchestration_id = run.workflowId;
  if (TEXT_AGENTS.has(step.agent_name) && step.depends_on.length > 0) {
    context.text = step.depends_on
      .map((dep) => resultText(done[dep]!.result))
      .join('\n\n')
      .slice(0, UPSTREAM_CHARS);
  }
  await run.report('executing', `step ${index}: ${step.agent_name}`);
  const started = performance.now();
  const outcome = await callSubAgent(entry, step.query, context, run.signal);
  const elapsed_ms = Math.round((performance.now() - started) * 10) / 10;
  if (outcome.status === 'completed')
    return { ...base, status: 'completed', elapsed_ms, result: outcome.result };
  if (outcome.status === 'cancelled')
    return { ...base, status: 'cancelled', elapsed_ms, error: outcome.message };
  return { ...base, status: 'failed', elapsed_ms, error: outcome.error };
}

export const orchestratorAgent: Agent = {
  name: 'orchestrator_agent',
  async run(deps, run): Promise<Agents.OrchestratorResult> {
    const started = performance.now();
    // Planning needs generation: without an endpoint the run answers 503 before it does anything.
    if (!(await deps.llm.resolve(run.tenant.full))) throw new LlmUnavailableError(run.tenant.full);

    await run.phase('memory_context');
    const memories = (await run.recall(run.query, 5)).map((memory) => memory.content);

    await run.phase('planning');
    const planningStarted = performance.now();
    const { plan: planned, dropped } = await plan(deps, run, memories);
    const planning_ms = performance.now() - planningStarted;

    await run.phase('execution', `${planned.steps.length} steps in ${planned.parallel_groups.length} groups`);
    // The plan as an event of the run, for its audit explanation.
    await run.artifact('plan', planned);
    const done: StepResult[] = [];
    let executionMs = 0;
    for (const [number, group] of planned.parallel_groups.entries()) {
      // The cancellation check before each group of steps.
      await run.phase(
        'retrieval_iteration',
        `group ${number + 1} of ${planned.parallel_groups.length}: steps ${group.join(', ')}`,
      );
      const groupStarted = performance.now();
      const results = await Promise.all(group.map((index) => runStep(run, planned, index, done)));
      executionMs += performance.now() - groupStarted;
      for (const result of results) done[result.step] = result;
    }
    const step_results = done.filter(Boolean);

    const completed = step_results.filter((step) => step.status === 'completed');
    const failed_steps = step_results.filter((step) => step.status !== 'completed').map((step) => step.step);
    const sources = [...new Set(completed.flatMap((step) => sourcesOf(step.result)))];
    await run.artifact('sources', sources);
    await run.phase('aggregating');
    let final_answer = '';
    const aggregateStarted = performance.now();
    if (completed.length > 0) {
      const user = [
        `Request: ${run.query}`,
        'Results of the agents:',
        ...completed.map(
          (step) =>
            `[step ${step.step}: ${step.agent_name}] ${resultText(step.result).slice(0, STEP_TEXT_CHARS)}`,
        ),
        ...(failed_steps.length > 0 ? [`Steps that did not complete: ${failed_steps.join(', ')}`] : []),
      ].join('\n\n');
      const raw = await deps.llm.json(run.tenant.full, {
        system: await systemPrompt(
          run,
          'Answer the request from the results of the agents only. If they do not answer it, say what is missing.',
        ),
        user,
        format: AGGREGATE_FORMAT,
        // The final answer streams to a caller that streams it; the plan above does not.
        ...answerCall(run, 'final_answer'),
      });
      const answer = z.object({ final_answer: z.string() }).safeParse(raw);
      if (!answer.success) {
        throw new LlmCallError(
          `The LLM answered JSON that does not match the orchestration answer schema: ${shorten(JSON.stringify(raw))}`,
        );
      }
      final_answer = answer.data.final_answer;
    }
    const aggregating_ms = performance.now() - aggregateStarted;
    await run.report('complete', `${completed.length} of ${step_results.length} steps completed`);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      orchestration_result: {
        workflow_id: run.workflowId ?? '',
        // Every step names an allowed agent (normalization dropped the others).
        plan: planned as Agents.OrchestratorResult['orchestration_result']['plan'],
        step_results,
        final_answer,
        failed_steps,
        dropped_steps: dropped,
        sources,
        timings: {
          total_ms: round(performance.now() - started),
          planning_ms: round(planning_ms),
          execution_ms: round(executionMs),
          aggregating_ms: round(aggregating_ms),
        },
      },
    };
  },
};
