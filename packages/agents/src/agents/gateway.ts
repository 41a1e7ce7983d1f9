/**
 * The gateway: classifies a query as simple or complex without a model call (the entity tagger plus
 * deterministic keyword rules), routes it by the tenant's routing configuration (simple → the execution
 * agent its intent and modality name, complex → the orchestrator), and answers the routed agent's result
 * (an orchestration runs as a workflow task of its own, which `workflow_id` names).
 */
import type { Agents, Config } from '@tessera/api';
import { tenantConfig } from '@tessera/config';
import { HttpError } from '@tessera/core';
import type { Agent } from '../agent';
import type { AgentsDeps } from '../deps';
import { words } from '../text';
import { guessModality } from './profile-selection';

interface Rule {
  name: string;
  pattern: RegExp;
  weight: number;
}

/** Signs of a query that needs several steps (positive) or one lookup (negative). */
const RULES: Rule[] = [
  {
    name: 'comparison',
    pattern: /\b(compare|comparison|comparing|versus|vs\.?|contrast|differences? between|similarities)\b/i,
    weight: 0.3,
  },
  {
    name: 'analysis',
    pattern: /\b(analy[sz]e|analysis|evaluate|evaluation|assess(ment)?|investigate|critique)\b/i,
    weight: 0.25,
  },
  {
    name: 'causal',
    pattern:
      /\b(why|explain how|how does .+ (affect|influence|impact)|impact of|effects? of|causes? of|implications?)\b/i,
    weight: 0.2,
  },
  {
    name: 'temporal',
    pattern: /\b(trends?|evolution|evolved|over time|timeline|history of|changed since)\b/i,
    weight: 0.2,
  },
  {
    name: 'synthesis',
    pattern:
      /\b(comprehensive|in[- ]depth|detailed|thorough|overview of all|pros and cons|advantages and disadvantages|relationships? between)\b/i,
    weight: 0.25,
  },
  {
    name: 'research',
    pattern:
      /\b(research|report on|write a report|literature|survey of|step[- ]by[- ]step|plan for|strategy for)\b/i,
    weight: 0.25,
  },
  {
    name: 'multi_part',
    pattern: /\b(and then|as well as|and also|after that|first\b.+\bthen)\b|\?.+\?/i,
    weight: 0.2,
  },
  {
    name: 'lookup',
    pattern: /^\s*(find|search|show|list|get|open|where|when|who|which|what is|what are|define|look up)\b/i,
    weight: -0.2,
  },
];

export interface Classification {
  classification: 'simple' | 'complex';
  confidence: number;
  reasons: string[];
  score: number;
}

/** The complexity score in [0, 1] of a query and its entities' count; complex from 0.5. */
export function classify(query: string, entityCount: number): Classification {
  const reasons: string[] = [];
  let score = 0.3;
  for (const rule of RULES) {
    if (rule.pattern.test(query)) {
      score += rule.weight;
      reasons.push(`${rule.name} (${rule.weight > 0 ? '+' : ''}${rule.weight})`);
    }
  }
  const count = words(query).length;
  if (count > 25) {
    score += 0.2;
    reasons.push(`${count} words (+0.2)`);
  } else if (count <= 6) {
    score -= 0.1;
    reasons.push(`${count} words (-0.1)`);
  }
  if (entityCount >= 3) {
    score += 0.2;
    reasons.push(`${entityCount} entities (+0.2)`);
  } else if (entityCount === 2) {
    score += 0.1;
    reasons.push('2 entities (+0.1)');
  }
  score = Math.min(1, Math.max(0, score));
  const classification = score >= 0.5 ? 'complex' : 'simple';
  const confidence = Math.round((0.5 + Math.abs(score - 0.5)) * 1000) / 1000;
  return { classification, confidence, reasons, score };
}

/** The agent a simple query goes to: its intent, else its modality, else search. */
export function executionAgent(query: string): Agents.AgentName {
  if (/\b(summari[sz]e|summary|tl;?dr|recap)\b/i.test(query)) return 'summarizer_agent';
  if (
    /\b(write|generate|implement|refactor|fix)\b.*\b(code|function|class|script|program|test|module)\b/i.test(
      query,
    )
  )
    return 'coding_agent';
  const { modality } = guessModality(query);
  if (modality === 'image') return 'image_search_agent';
  if (modality === 'audio') return 'audio_analysis_agent';
  if (modality === 'document' && /\b(documents?|pdfs?|papers?|manuals?|docs)\b/i.test(query))
    return 'document_agent';
  return 'search_agent';
}

/** Where the tenant's routing configuration sends a classified query. */
export function route(
  query: string,
  found: Classification,
  routing: Config.RoutingConfig,
): { routed_to: Agents.AgentName; reason: string } {
  const direct = executionAgent(query);
  if (found.classification === 'simple') {
    if (routing.enable_fast_path && found.confidence >= routing.fast_path_confidence_threshold)
      return {
        routed_to: direct,
        reason: `fast path: simple at ${found.confidence} ≥ ${routing.fast_path_confidence_threshold}`,
      };
    if (routing.enable_slow_path)
      return {
        routed_to: 'orchestrator_agent',
        reason: routing.enable_fast_path
          ? `slow path: simple at ${found.confidence} < ${routing.fast_path_confidence_threshold}`
          : 'slow path: the fast path is disabled',
      };
    return { routed_to: direct, reason: 'the slow path is disabled' };
  }
  if (routing.enable_slow_path && found.confidence >= routing.slow_path_confidence_threshold)
    return {
      routed_to: 'orchestrator_agent',
      reason: `slow path: complex at ${found.confidence} ≥ ${routing.slow_path_confidence_threshold}`,
    };
  if (routing.enable_fast_path)
    return {
      routed_to: direct,
      reason: routing.enable_slow_path
        ? `fast path: complex at ${found.confidence} < ${routing.slow_path_confidence_threshold}`
        : 'fast path: the slow path is disabled',
    };
  return { routed_to: 'orchestrator_agent', reason: 'both paths disabled: the orchestrator decides' };
}

/** Classification and route of a query for a tenant, timed. */
export async function classifyQuery(deps: AgentsDeps, tenantFullId: string, query: string) {
  const started = performance.now();
  const [entities, routing] = await Promise.all([
    deps.entities.extract(query, { sourceDocId: 'agent-task', segmentId: 'query' }),
    tenantConfig(deps.config, tenantFullId, 'routing'),
  ]);
  const found = classify(query, new Set(entities.map((e) => e.text.toLowerCase())).size);
  const { routed_to, reason } = route(query, found, routing.value as Config.RoutingConfig);
  const elapsed_ms = Math.round((performance.now() - started) * 1000) / 1000;
  return { ...found, routed_to, reasons: [...found.reasons, reason], elapsed_ms, entities, routing };
}

/** A routed agent that could not run: not built, disabled, or needing an LLM that is not configured. */
function fallbackReason(error: unknown): string | undefined {
  if (!(error instanceof HttpError)) return undefined;
  const detail = error.detail as { error?: string; message?: string } | string;
  if (error.status === 501 || (error.status === 409 && /is disabled/.test(String(detail))))
    return typeof detail === 'string' ? detail : (detail.message ?? error.message);
  if (error.status === 503 && typeof detail === 'object' && detail.error === 'llm_unavailable')
    return detail.message;
  return undefined;
}

/** The workflow task a routed run reported on (an orchestration's or deep research's own), if any. */
function workflowOf(result: Record<string, unknown> | null): string | undefined {
  const orchestration = result?.orchestration_result as { workflow_id?: unknown } | undefined;
  const id = result?.workflow_id ?? orchestration?.workflow_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export const gatewayAgent: Agent = {
  name: 'gateway_agent',
  async run(deps, run): Promise<Agents.GatewayResult> {
    await run.phase('classify');
    const found = await classifyQuery(deps, run.tenant.full, run.query);
    const answer: Agents.GatewayResult = {
      classification: found.classification,
      confidence: found.confidence,
      routed_to: found.routed_to,
      elapsed_ms: found.elapsed_ms,
      reasons: found.reasons,
      result: null,
    };
    if (run.context.classify_only) return answer;
    await run.phase('route', found.routed_to);
    try {
      answer.result = await run.dispatch(found.routed_to, run.query, run.context);
    } catch (error) {
      const reason = fallbackReason(error);
      const routing = found.routing.value as Config.RoutingConfig;
      if (reason === undefined || !routing.enable_fallback || found.routed_to === 'search_agent') throw error;
      answer.fallback = { from: found.routed_to, reason };
      answer.routed_to = 'search_agent';
      answer.result = await run.dispatch('search_agent', run.query, run.context);
    }
    const workflowId = workflowOf(answer.result);
    if (workflowId) answer.workflow_id = workflowId;
    return answer;
  },
};
