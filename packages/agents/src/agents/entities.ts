/** Entity extraction with the deployment's entity tagger (the embedded one by default: no model call). */
import type { Agents } from '@tessera/api';
import type { Agent } from '../agent';
import type { AgentsDeps } from '../deps';

export async function extractEntities(
  deps: AgentsDeps,
  text: string,
): Promise<Agents.EntityExtractionResult> {
  const found = await deps.entities.extract(text, { sourceDocId: 'agent-task', segmentId: 'query' });
  const entities = found.map(({ text: span, label, start, end, score }) => ({
    text: span,
    label,
    start,
    end,
    score,
  }));
  const counts = new Map<string, number>();
  for (const entity of entities) counts.set(entity.label, (counts.get(entity.label) ?? 0) + 1);
  return {
    entities,
    entity_count: entities.length,
    // Labels by how many entities carry them, then by first appearance.
    dominant_types: [...counts].sort((a, b) => b[1] - a[1]).map(([label]) => label),
    extractor: deps.entities.name,
    method: 'extractive',
  };
}

export const entityExtractionAgent: Agent = {
  name: 'entity_extraction_agent',
  async run(deps, run) {
    await run.phase('extract_entities');
    return extractEntities(deps, run.context.text ?? run.query);
  },
};
