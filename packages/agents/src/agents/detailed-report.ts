/**
 * The detailed report: the content retrieved for the query as a report of sections. Without an LLM endpoint
 * the sections are the hits themselves, grouped by source document, their sentences that cover the query
 * verbatim (`method: 'extractive'`); with one, the LLM writes the sections from the numbered hits (strict
 * json_schema) and each section cites the hits it rests on, kept only when they are hits of this run.
 */
import type { Agents } from '@tessera/api';
import { LlmCallError, shorten } from '@tessera/llm';
import { z } from 'zod';
import { type Agent, systemPrompt } from '../agent';
import { overlap, proseOf, queryTerms, sentences } from '../text';
import { retrieve } from './search';

const SECTION_SENTENCES = 4;
const HIT_CHARS = 1500;

const REPORT_FORMAT = {
  name: 'detailed_report',
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      sections: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            heading: { type: 'string' },
            body: { type: 'string' },
            citations: { type: 'array', items: { type: 'string' } },
          },
          required: ['heading', 'body', 'citations'],
          additionalProperties: false,
        },
      },
    },
    required: ['title', 'sections'],
    additionalProperties: false,
  },
};

const ReportAnswer = z.object({
  title: z.string(),
  sections: z.array(z.object({ heading: z.string(), body: z.string(), citations: z.array(z.string()) })),
});

export const detailedReportAgent: Agent = {
  name: 'detailed_report_agent',
  async run(deps, run): Promise<Agents.DetailedReportResult> {
    const found = await retrieve(deps, run, { topK: run.context.top_k ?? 8 });
    const sources = found.results.map((hit) => hit.document_id);
    const title = `Report: ${run.query.slice(0, 200)}`;
    if (found.results.length === 0) return { report: { title, sections: [] }, method: 'extractive', sources };
    const settings = await deps.llm.resolve(run.tenant.full);
    if (!settings) {
      await run.phase('structure', 'extractive: no LLM endpoint is configured');
      const terms = queryTerms(run.query);
      const bySource = new Map<string, typeof found.results>();
      for (const hit of found.results)
        bySource.set(hit.source_doc_id, [...(bySource.get(hit.source_doc_id) ?? []), hit]);
      const sections = [...bySource].map(([source, hits]) => {
        const picked = proseOf(
          hits.flatMap((hit, rank) =>
            sentences(found.texts.get(hit.document_id) || hit.text).map((sentence, order) => ({
              sentence,
              id: hit.document_id,
              score: overlap(terms, sentence) - rank * 1e-3,
              key: rank * 10_000 + order,
            })),
          ),
        )
          .sort((a, b) => b.score - a.score || a.key - b.key)
          .slice(0, SECTION_SENTENCES)
          .sort((a, b) => a.key - b.key);
        return {
          heading: source,
          body: picked.map((entry) => entry.sentence).join(' '),
          citations: [...new Set(picked.map((entry) => entry.id))],
        };
      });
      return { report: { title, sections }, method: 'extractive', sources };
    }
    await run.phase('write_report');
    const user = [
      `Request: ${run.query}`,
      'Hits (cite them by their id in brackets):',
      ...found.results.map(
        (hit) =>
          `[${hit.document_id}] (${hit.source_doc_id}) ${(found.texts.get(hit.document_id) || hit.text).slice(0, HIT_CHARS)}`,
      ),
    ].join('\n\n');
    const raw = await deps.llm.json(run.tenant.full, {
      system: await systemPrompt(
        run,
        'Write a structured report for the request from the hits only: a title and sections, each with a heading, a body and the ids of the hits it rests on. Say what the hits do not cover; add nothing they do not say.',
      ),
      user,
      format: REPORT_FORMAT,
    });
    const answer = ReportAnswer.safeParse(raw);
    if (!answer.success) {
      throw new LlmCallError(
        `The LLM answered JSON that does not match the report schema: ${shorten(JSON.stringify(raw))}`,
      );
    }
    const real = new Set(sources);
    return {
      report: {
        title: answer.data.title,
        sections: answer.data.sections.map((section) => ({
          ...section,
          // Only ids of this run's hits: a citation the model made up is dropped.
          citations: [...new Set(section.citations.filter((id) => real.has(id)))],
        })),
      },
      method: 'llm',
      sources,
    };
  },
};
