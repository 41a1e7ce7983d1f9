/**
 * The summarizer: of the context's text, or of the content retrieved for the query. With the tenant's LLM
 * endpoint it writes a summary of the passages (strict json_schema); without one it picks the passages'
 * sentences that best cover the query and the rest of the passages, verbatim (`method: 'extractive'`).
 * The LLM's summary streams to a caller that streams the answer (`answerCall`).
 */
import type { Agents } from '@tessera/api';
import { LlmCallError, shorten } from '@tessera/llm';
import { z } from 'zod';
import { type Agent, type AgentRun, answerCall, systemPrompt } from '../agent';
import type { AgentsDeps } from '../deps';
import { conversationLines, overlap, proseOf, queryTerms, sentences, words } from '../text';
import { retrieve } from './search';

const SUMMARY_SENTENCES = 3;
const PASSAGE_CHARS = 2000;

interface Passage {
  id: string;
  text: string;
}

/**
 * The sentences that share most with the query and with the other sentences, in their original order; of
 * finished sentences (ending in `.`, `!`, `?` or `…`) when the passages have any, never heading lines.
 */
export function extractiveSummary(query: string, passages: Passage[], count = SUMMARY_SENTENCES) {
  const terms = queryTerms(query);
  const all = passages.flatMap((passage, p) =>
    sentences(passage.text).map((sentence, s) => ({ sentence, id: passage.id, order: p * 10_000 + s })),
  );
  const frequency = new Map<string, number>();
  for (const { sentence } of all)
    for (const word of new Set(words(sentence))) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const scored = proseOf(all).map((entry) => {
    const tokens = new Set(words(entry.sentence));
    const central =
      [...tokens].reduce((sum, word) => sum + ((frequency.get(word) ?? 1) - 1), 0) / Math.max(1, tokens.size);
    return { ...entry, score: 2 * overlap(terms, entry.sentence) + central / Math.max(1, all.length) };
  });
  const seen = new Set<string>();
  const chosen = scored
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .filter((entry) => !seen.has(entry.sentence) && seen.add(entry.sentence))
    .slice(0, count)
    .sort((a, b) => a.order - b.order);
  return {
    summary: chosen.map((entry) => entry.sentence).join(' '),
    sources: [...new Set(chosen.map((e) => e.id))],
  };
}

const SUMMARY_FORMAT = {
  name: 'summary',
  schema: {
    type: 'object',
    properties: { summary: { type: 'string' } },
    required: ['summary'],
    additionalProperties: false,
  },
};

async function passagesOf(deps: AgentsDeps, run: AgentRun): Promise<Passage[]> {
  if (run.context.text !== undefined) return [{ id: 'context.text', text: run.context.text }];
  const found = await retrieve(deps, run, { topK: run.context.top_k ?? 5 });
  return found.results.map((hit) => ({
    id: hit.document_id,
    text: found.texts.get(hit.document_id) || hit.text,
  }));
}

export const summarizerAgent: Agent = {
  name: 'summarizer_agent',
  async run(deps, run): Promise<Agents.SummarizerResult> {
    const passages = await passagesOf(deps, run);
    const sources = passages.filter((p) => p.id !== 'context.text').map((p) => p.id);
    if (passages.length === 0) return { summary: '', method: 'extractive', sources: [] };
    const settings = await deps.llm.resolve(run.tenant.full);
    if (!settings) {
      await run.phase('summarize', 'extractive: no LLM endpoint is configured');
      const extract = extractiveSummary(run.query, passages);
      return {
        summary: extract.summary,
        method: 'extractive',
        sources: extract.sources.filter((id) => id !== 'context.text'),
      };
    }
    await run.phase('summarize');
    const user = [
      ...conversationLines(run.context),
      `Request: ${run.query}`,
      'Passages:',
      ...passages.map((p) => `[${p.id}] ${p.text.slice(0, PASSAGE_CHARS)}`),
    ].join('\n\n');
    const raw = await deps.llm.json(run.tenant.full, {
      system: await systemPrompt(
        run,
        'Summarize the passages for the request in a few sentences. Use only what the passages say; if they do not cover the request, say so.',
      ),
      user,
      format: SUMMARY_FORMAT,
      // The summary is the answer: a streaming caller gets its text as it is written.
      ...answerCall(run, 'summary'),
    });
    const answer = z.object({ summary: z.string() }).safeParse(raw);
    if (!answer.success) {
      throw new LlmCallError(
        `The LLM answered JSON that does not match the summary schema: ${shorten(JSON.stringify(raw))}`,
      );
    }
    await run.phase('summarized');
    return { summary: answer.data.summary, method: 'llm', sources };
  },
};
