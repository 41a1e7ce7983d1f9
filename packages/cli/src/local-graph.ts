/** `tessera index`'s local graph pass: the text siblings' entities, and the run's upserts and counts. */
import { readFile } from 'node:fs/promises';
import type { Graph } from '@tessera/api';
import { edgeId, normalizeNodeId } from '@tessera/graph/ids';
import type { z } from 'zod';
import type { RuntimeClient } from './client';
import type { IndexError } from './uploads';
import type { WalkedFile } from './walk';

/** The extractors (syntax trees, the entity tagger) load when a tree is indexed, not with every command. */
export const extractors = () => import('@tessera/extractors');

/** Nodes or edges a graph upsert carries, well inside the API's body limit. */
const UPSERT_ITEMS = 2000;

/** The parts of an upserted node and edge that identify them (the whole of them is sent). */
export type UpsertNode = Pick<z.input<typeof Graph.NodeInput>, 'name'>;
export type UpsertEdge = Pick<
  z.input<typeof Graph.EdgeInput>,
  'source' | 'relation' | 'target' | 'segment_id' | 'ts_start' | 'ts_end'
>;

/**
 * Upserts the run's graph in requests the API's body limit takes, and answers how many distinct nodes (edge
 * ends included) and edges it holds, as the graph identifies them: a node upserted by several requests (a
 * symbol many files import) counts once, where the requests' own counts would count it in each.
 */
export async function upsertGraph(
  client: RuntimeClient,
  tenant: string,
  nodes: UpsertNode[],
  edges: UpsertEdge[],
): Promise<{ nodes: number; edges: number }> {
  for (let start = 0; start < Math.max(nodes.length, edges.length); start += UPSERT_ITEMS) {
    await client.post(
      '/graph/upsert',
      {
        tenant_id: tenant,
        nodes: nodes.slice(start, start + UPSERT_ITEMS),
        edges: edges.slice(start, start + UPSERT_ITEMS),
      },
      120_000,
    );
  }
  const nodeIds = new Set(nodes.map((node) => normalizeNodeId(node.name)));
  const edgeIds = new Set<string>();
  for (const edge of edges) {
    const source = normalizeNodeId(edge.source);
    const target = normalizeNodeId(edge.target);
    nodeIds.add(source).add(target);
    edgeIds.add(edgeId(source, edge.relation, target, edge.segment_id, edge.ts_start, edge.ts_end));
  }
  return { nodes: nodeIds.size, edges: edgeIds.size };
}

/** Graph nodes of the text-like siblings (entities only: no edges without an LLM). */
export async function textGraph(files: WalkedFile[]): Promise<{ nodes: UpsertNode[]; errors: IndexError[] }> {
  const nodes: UpsertNode[] = [];
  const errors: IndexError[] = [];
  if (files.length === 0) return { nodes, errors };
  const { chunkText, createEntityExtractor, extractDocumentGraph } = await extractors();
  const entities = createEntityExtractor();
  for (const file of files) {
    try {
      const text = await readFile(file.absolute, 'utf8');
      const segments = chunkText(text).map((chunk, index) => ({
        segment_id: `chunk_${index}`,
        text: chunk,
        ts_start: 0,
        ts_end: 0,
        modality: 'text',
      }));
      if (segments.length === 0) continue;
      const graph = await extractDocumentGraph({ sourceDocId: file.relative, segments, entities });
      nodes.push(...graph.nodes);
    } catch (error) {
      errors.push({ path: file.relative, message: (error as Error).message });
    }
  }
  return { nodes, errors };
}
