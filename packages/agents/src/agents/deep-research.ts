/**
 * Deep research (document 3's producer phases): iterations of `decompose` (the LLM splits the request, or
 * the gaps the last evaluation named, into search questions), `search` (each question over the tenant's
 * content) and `evaluate` (the LLM says whether the hits answer the request and what is missing), each phase
 * followed by a ProgressEvent; then `synthesize`: a partial answer from each batch of hits (a batch's listing
 * stays within the synthesis characters), and `rlm_synthesis`: the recursive synthesis module merges the
 * partial answers into one (`recursive-synthesis.ts`), citing real hits only. Bounded by iterations, tokens
 * (estimated at 4 characters a token) and wall time (`env.ts`); 503 without an LLM.
 */
import type { Agents } from '@tessera/api';
import {
  type JsonCallOptions,
  type JsonSchemaFormat,
  LlmCallError,
  LlmUnavailableError,
  shorten,
} from '@tessera/llm';
import { z } from 'zod';
import { type Agent, type AgentRun, answerCall, systemPrompt } from '../agent';
import type { AgentsDeps } from '../deps';
import { agentsEnv } from '../env';
import { type PartialAnswer, recursiveSynthesis } from './recursive-synthesis';
import { retrieve } from './search';

const QUESTIONS_PER_ITERATION = 3;
const HITS_PER_QUESTION = 5;
const MAX_HITS = 24;
const HIT_CHARS = 1200;

const strictObject = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const strings = { type: 'array', items: { type: 'string' } };

const DECOMPOSE: JsonSchemaFormat = {
  name: 'research_questions',
  schema: strictObject({ questions: strings }),
};
const EVALUATE: JsonSchemaFormat = {
  name: 'research_evaluation',
  schema: strictObject({ sufficient: { type: 'boolean' }, gaps: strings }),
};
const SYNTHESIZE: JsonSchemaFormat = {
  name: 'research_answer',
  schema: strictObject({ answer: { type: 'string' }, sources: strings }),
};
const MERGE: JsonSchemaFormat = {
  name: 'research_merge',
  schema: strictObject({ answer: { type: 'string' }, sources: strings }),
};

interface Hit {
  id: string;
  source: string;
  text: string;
}

/** LLM calls of one run, counting the tokens they spend. */
class Budget {
  tokens = 0;
  constructor(
    private readonly deps: AgentsDeps,
    private readonly run: AgentRun,
  ) {}

  async ask<T>(
    format: JsonSchemaFormat,
    shape: z.ZodType<T>,
    system: string,
    user: string,
    options: JsonCallOptions = {},
  ): Promise<T> {
    const prompt = await systemPrompt(this.run, system);
    const raw = await this.deps.llm.json(this.run.tenant.full, { system: prompt, user, format, ...options });
    const text = JSON.stringify(raw) ?? '';
    this.tokens += Math.ceil((prompt.length + user.length + text.length) / 4);
    const parsed = shape.safeParse(raw);
    if (!parsed.success) {
      throw new LlmCallError(
        `The LLM answered JSON that does not match the ${format.name} schema: ${shorten(text)}`,
      );
    }
    return parsed.data;
  }
}

const Answer = z.object({ answer: z.string(), sources: z.array(z.string()) });

/** Hits cut into runs whose listing stays within `chars` (a hit longer than that is a batch alone). */
function batchesOf(hits: Hit[], chars: number): Hit[][] {
  const batches: Hit[][] = [];
  let size = 0;
  for (const hit of hits) {
    const length = listing([hit]).length + 2;
    const last = batches.at(-1);
    if (last && size + length <= chars) {
      last.push(hit);
      size += length;
    } else {
      batches.push([hit]);
      size = length;
    }
  }
  return batches;
}

const listing = (hits: Hit[]) =>
  hits.map((hit) => `[${hit.id}] (${hit.source}) ${hit.text.slice(0, HIT_CHARS)}`).join('\n\n');

export const deepResearchAgent: Agent = {
  name: 'deep_research_agent',
  async run(deps, run): Promise<Agents.DeepResearchResult> {
    if (!(await deps.llm.resolve(run.tenant.full))) throw new LlmUnavailableError(run.tenant.full);
    const limits = deps.settings ?? agentsEnv;
    const started = Date.now();
    const budget = new Budget(deps, run);
    const hits = new Map<string, Hit>();
    const iterations: Agents.DeepResearchResult['iterations'] = [];
    let profile = run.context.profile;
    let gaps: string[] = [];
    let stopped_by: Agents.DeepResearchResult['stopped_by'] = 'iterations';
    const max = limits.deepResearchMaxIterations;

    for (let iteration = 1; iteration <= max; iteration++) {
      await run.phase('decompose', `iteration ${iteration} of ${max}`);
      const { questions: asked } = await budget.ask(
        DECOMPOSE,
        z.object({ questions: z.array(z.string()) }),
        `Split the research request into at most ${QUESTIONS_PER_ITERATION} short search questions${gaps.length ? ' that cover what is still missing' : ''}.`,
        [`Request: ${run.query}`, ...(gaps.length ? [`Missing so far: ${gaps.join('; ')}`] : [])].join('\n'),
      );
      const questions = asked
        .map((q) => q.trim())
        .filter((q) => q !== '')
        .slice(0, QUESTIONS_PER_ITERATION);
      await run.progress(iteration, max, 'decompose', { iteration, questions });
      if (questions.length === 0) {
        stopped_by = 'no_questions';
        break;
      }

      await run.phase('search', `iteration ${iteration}: ${questions.length} questions`);
      let fresh = 0;
      for (const question of questions) {
        const found = await retrieve(
          deps,
          {
            ...run,
            query: question.slice(0, 2000),
            context: { ...run.context, ...(profile ? { profile } : {}) },
          },
          { topK: HITS_PER_QUESTION },
        );
        profile ??= found.profile ?? undefined;
        for (const hit of found.results) {
          if (hits.has(hit.document_id) || hits.size >= MAX_HITS) continue;
          hits.set(hit.document_id, {
            id: hit.document_id,
            source: hit.source_doc_id,
            text: found.texts.get(hit.document_id) || hit.text,
          });
          fresh++;
        }
      }
      await run.progress(iteration, max, 'search', { iteration, new_hits: fresh, hits: hits.size });

      await run.phase('evaluate', `iteration ${iteration}`);
      const evaluation = await budget.ask(
        EVALUATE,
        z.object({ sufficient: z.boolean(), gaps: z.array(z.string()) }),
        'Say whether the hits answer the research request, and list what is still missing.',
        [`Request: ${run.query}`, 'Hits:', listing([...hits.values()]) || '(none)'].join('\n\n'),
      );
      gaps = evaluation.gaps.slice(0, 5);
      iterations.push({ iteration, questions, found: fresh, sufficient: evaluation.sufficient, gaps });
      await run.progress(iteration, max, 'evaluate', { iteration, sufficient: evaluation.sufficient, gaps });

      if (evaluation.sufficient) {
        stopped_by = 'sufficient';
        break;
      }
      if (budget.tokens >= limits.deepResearchMaxTokens) {
        stopped_by = 'tokens';
        break;
      }
      if (Date.now() - started >= limits.deepResearchMaxSeconds * 1000) {
        stopped_by = 'time';
        break;
      }
    }

    const batches = batchesOf([...hits.values()], limits.deepResearchSynthesisChars);
    await run.phase(
      'synthesize',
      `${hits.size} hits in ${batches.length} batches after ${iterations.length} iterations (${stopped_by})`,
    );
    // Only the call that writes the final answer streams to a caller that streams it: the one partial answer
    // of a single batch, else the last merge.
    const answerOf = async (format: JsonSchemaFormat, system: string, user: string, final: boolean) => {
      const said = await budget.ask(
        format,
        Answer,
        system,
        [`Request: ${run.query}`, user].join('\n\n'),
        final ? answerCall(run, 'answer') : { signal: run.signal },
      );
      return { answer: said.answer, sources: [...new Set(said.sources.filter((id) => hits.has(id)))] };
    };
    const partials: PartialAnswer[] = [];
    for (const batch of batches) {
      partials.push(
        await answerOf(
          SYNTHESIZE,
          'Answer the research request from the hits only, and list the ids of the hits the answer rests on. Say what the hits do not cover.',
          `Hits:\n\n${listing(batch)}`,
          batches.length === 1,
        ),
      );
    }

    await run.phase('rlm_synthesis', `${partials.length} partial answers`);
    const merged = await recursiveSynthesis(run, partials, (group, _iteration, last) =>
      answerOf(
        MERGE,
        'Merge these partial answers to the research request into one answer. Keep only what they say, and list the ids of the hits the merged answer rests on.',
        group
          .map((part, i) => `[partial ${i + 1}] (hits ${part.sources.join(', ') || 'none'})\n${part.answer}`)
          .join('\n\n'),
        last,
      ),
    );
    const real = [...hits.keys()];
    const answer = merged.answer?.answer ?? '';
    const sources = merged.answer?.sources.length ? merged.answer.sources : real;
    return {
      workflow_id: run.workflowId ?? '',
      answer,
      iterations,
      sources,
      method: 'llm',
      stopped_by,
      tokens_estimated: budget.tokens,
      synthesis: { batches: batches.length, rlm_iterations: merged.iterations },
    };
  },
};
