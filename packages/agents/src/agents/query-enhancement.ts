/**
 * Query enhancement: the query's entities (the tagger's, and the query's words and word pairs that name a
 * node) are looked up in the tenant's knowledge graph, and their neighbours become expansion terms. With the
 * tenant's LLM endpoint the LLM rewrites the query with them (strict json_schema, `method: 'llm'`); without
 * one the enhanced query is the query and the expansions (`method: 'retrieval'`).
 */
import type { Agents } from '@tessera/api';
import { NotFoundError } from '@tessera/core';
import { graphNeighbors, normalizeNodeId } from '@tessera/graph';
import { LlmCallError, shorten } from '@tessera/llm';
import { z } from 'zod';
import { type Agent, type AgentRun, systemPrompt } from '../agent';
import type { AgentsDeps } from '../deps';
import { isStopWord, words } from '../text';

/** Seeds looked up in the graph at most, and expansion terms kept at most. */
const MAX_SEEDS = 16;
const MAX_EXPANSIONS = 12;

/** Names in the query that may be graph nodes: the tagger's entities first, then words and word pairs. */
export function seedsOf(query: string, entities: string[]): string[] {
  const tokens = words(query.slice(0, 2000)).filter((word) => word.length >= 3 || /\d/.test(word));
  const pairs = tokens.slice(1).map((word, i) => `${tokens[i]} ${word}`);
  const seen = new Set<string>();
  const seeds: string[] = [];
  for (const name of [...entities, ...pairs, ...tokens.filter((word) => !isStopWord(word))]) {
    const id = normalizeNodeId(name);
    if (id === '' || seen.has(id)) continue;
    seen.add(id);
    seeds.push(id);
  }
  return seeds.slice(0, MAX_SEEDS);
}

/** The neighbours (one hop, both directions) of the seeds the tenant's graph holds, as words. */
async function neighbourTerms(deps: AgentsDeps, run: AgentRun, seeds: string[]) {
  if (!deps.graph) return { matched: [], expansions: [] };
  const graph = deps.graph;
  const matched: string[] = [];
  const expansions: string[] = [];
  const inQuery = new Set(words(run.query));
  for (const seed of seeds) {
    let found: Awaited<ReturnType<typeof graphNeighbors>>;
    try {
      found = await graphNeighbors(graph, run.tenant.full, seed, 1);
    } catch (error) {
      if (error instanceof NotFoundError) continue;
      throw error;
    }
    matched.push(found.name);
    const ids = [
      ...found.out_edges.map((edge) => edge.target_node_id),
      ...found.in_edges.map((edge) => edge.source_node_id),
    ];
    for (const id of ids) {
      const term = id.replace(/_/g, ' ');
      if (id === seed || expansions.includes(term) || words(term).every((w) => inQuery.has(w))) continue;
      expansions.push(term);
    }
  }
  return { matched, expansions: expansions.slice(0, MAX_EXPANSIONS) };
}

const REWRITE_FORMAT = {
  name: 'enhanced_query',
  schema: {
    type: 'object',
    properties: {
      enhanced_query: { type: 'string' },
      expansions: { type: 'array', items: { type: 'string' } },
    },
    required: ['enhanced_query', 'expansions'],
    additionalProperties: false,
  },
};

export const queryEnhancementAgent: Agent = {
  name: 'query_enhancement_agent',
  async run(deps, run): Promise<Agents.QueryEnhancementResult> {
    await run.phase('extract_entities');
    const tagged = await deps.entities.extract(run.query, { sourceDocId: 'agent-task', segmentId: 'query' });
    await run.phase('graph_neighbours');
    const { matched, expansions } = await neighbourTerms(
      deps,
      run,
      seedsOf(
        run.query,
        tagged.map((entity) => entity.text),
      ),
    );
    const original_query = run.query;
    const settings = await deps.llm.resolve(run.tenant.full);
    if (!settings) {
      return {
        original_query,
        enhanced_query: [original_query, ...expansions].join(' '),
        expansions,
        entities: matched,
        method: 'retrieval',
      };
    }
    await run.phase('rewrite');
    const raw = await deps.llm.json(run.tenant.full, {
      system: await systemPrompt(
        run,
        'Rewrite the search query so a search engine finds what the user means. Keep its meaning; add only the related terms given that help. Answer the rewritten query and the terms you added.',
      ),
      user: [
        `Query: ${original_query}`,
        `Related terms from the knowledge graph: ${expansions.join(', ') || '(none)'}`,
      ].join('\n'),
      format: REWRITE_FORMAT,
    });
    const answer = z
      .object({ enhanced_query: z.string().trim().min(1), expansions: z.array(z.string()) })
      .safeParse(raw);
    if (!answer.success) {
      throw new LlmCallError(
        `The LLM answered JSON that does not match the enhanced query schema: ${shorten(JSON.stringify(raw))}`,
      );
    }
    return {
      original_query,
      enhanced_query: answer.data.enhanced_query,
      expansions: answer.data.expansions,
      entities: matched,
      method: 'llm',
    };
  },
};
