/**
 * The orchestrator's plan: the planner's strict JSON schema (its agent field an enum of the agents it may
 * call) and the normalization of what the planner answers: unknown agents dropped, steps beyond the limit
 * dropped, dependencies that point nowhere dropped, cycles made sequential, and the parallel groups (steps
 * whose dependencies are all in earlier groups run together).
 */
import type { JsonSchemaFormat } from '@tessera/llm';
import { z } from 'zod';

export interface PlanStep {
  agent_name: string;
  query: string;
  /** Indices of the steps this one waits for. */
  depends_on: number[];
}

export interface Plan {
  steps: PlanStep[];
  /** Step indices that run together, in the order the groups run. */
  parallel_groups: number[][];
}

/** Agents the planner never chooses: the orchestrator itself and the gateway that routes to it. */
export const NOT_PLANNABLE: ReadonlySet<string> = new Set(['orchestrator_agent', 'gateway_agent']);

/** The planner's answer format: steps whose `agent_name` is one of `agents`. */
export function plannerFormat(agents: readonly string[]): JsonSchemaFormat {
  return {
    name: 'orchestration_plan',
    schema: {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              agent_name: { type: 'string', enum: [...agents] },
              query: { type: 'string' },
              depends_on: { type: 'array', items: { type: 'integer' } },
            },
            required: ['agent_name', 'query', 'depends_on'],
            additionalProperties: false,
          },
        },
      },
      required: ['steps'],
      additionalProperties: false,
    },
  };
}

/** What the planner must answer at least: a list of steps, each with an agent and a query. */
export const PlannerAnswer = z.object({
  steps: z.array(
    z.object({
      agent_name: z.string(),
      query: z.string(),
      depends_on: z.array(z.number()).default([]),
    }),
  ),
});
export type PlannerAnswer = z.output<typeof PlannerAnswer>;

export interface NormalizeOptions {
  /** The agents a step may name; a step naming another is dropped. */
  allowed: ReadonlySet<string>;
  maxSteps: number;
  /** The query a step without one gets (the run's own). */
  query: string;
  maxQueryChars?: number;
}

/** The plan the orchestrator runs, whatever the planner answered; `dropped` says what was left out and why. */
export function normalizePlan(answer: PlannerAnswer, options: NormalizeOptions) {
  const dropped: { agent_name: string; reason: string }[] = [];
  // Old index → new index of the steps kept.
  const kept = new Map<number, number>();
  const raw: { step: PlanStep; from: number }[] = [];
  for (const [index, step] of answer.steps.entries()) {
    if (!options.allowed.has(step.agent_name)) {
      dropped.push({ agent_name: step.agent_name, reason: 'not an agent the orchestrator may call' });
      continue;
    }
    if (raw.length >= options.maxSteps) {
      dropped.push({ agent_name: step.agent_name, reason: `beyond the limit of ${options.maxSteps} steps` });
      continue;
    }
    const query = step.query.trim() === '' ? options.query : step.query.trim();
    kept.set(index, raw.length);
    raw.push({
      step: {
        agent_name: step.agent_name,
        query: query.slice(0, options.maxQueryChars ?? 20_000),
        depends_on: [],
      },
      from: index,
    });
  }
  const steps = raw.map(({ step, from }, self) => {
    const deps = new Set<number>();
    for (const dep of answer.steps[from]!.depends_on) {
      const target = Number.isInteger(dep) ? kept.get(dep) : undefined;
      if (target !== undefined && target !== self) deps.add(target);
    }
    return { ...step, depends_on: [...deps].sort((a, b) => a - b) };
  });
  breakCycles(steps);
  return { plan: { steps, parallel_groups: parallelGroups(steps) } satisfies Plan, dropped };
}

/** Strongly connected components of the dependency graph (Tarjan), each in index order. */
function components(steps: PlanStep[]): number[][] {
  let counter = 0;
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const stack: number[] = [];
  const on = new Set<number>();
  const found: number[][] = [];
  const visit = (v: number) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    on.add(v);
    for (const w of steps[v]!.depends_on) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      found.push(component.sort((a, b) => a - b));
    }
  };
  for (let v = 0; v < steps.length; v++) if (!index.has(v)) visit(v);
  return found;
}

/** A cycle's steps run one after another in plan order: its inner dependencies become a chain. */
function breakCycles(steps: PlanStep[]): void {
  for (const component of components(steps)) {
    if (component.length < 2) continue;
    const members = new Set(component);
    for (const [position, member] of component.entries()) {
      const outside = steps[member]!.depends_on.filter((dep) => !members.has(dep));
      const previous = position > 0 ? [component[position - 1]!] : [];
      steps[member]!.depends_on = [...outside, ...previous].sort((a, b) => a - b);
    }
  }
}

/** Levels of the (acyclic) dependency graph: a step runs in the group after its last dependency's. */
function parallelGroups(steps: PlanStep[]): number[][] {
  const level = new Map<number, number>();
  const levelOf = (step: number): number => {
    const known = level.get(step);
    if (known !== undefined) return known;
    const value = Math.max(-1, ...steps[step]!.depends_on.map(levelOf)) + 1;
    level.set(step, value);
    return value;
  };
  const groups: number[][] = [];
  for (let step = 0; step < steps.length; step++) {
    const at = levelOf(step);
    groups[at] ??= [];
    groups[at].push(step);
  }
  return groups.filter((group) => group !== undefined);
}
