/**
 * The server-side graph pass of uploaded files (document 1): entities, then claims with the prior-entity
 * pool; the graphs of a window's files stored in one upsert; back-references for each content document.
 * Fail-safe: any failure leaves the files indexed with no graph, and says why.
 */
import { log } from '@tessera/core';
import {
  type CrossModalEdge,
  type CrossModalMention,
  type DocumentGraph,
  extractDocumentGraph,
  linkCrossModal,
} from '@tessera/extractors';
import { GraphWrite, MAX_ITEMS, upsertGraphs } from '@tessera/graph';
import { normalizeNodeId } from '@tessera/graph/ids';
import type { TenantRef } from '@tessera/tenancy';
import type { Extractors, IngestionDeps } from './deps';
import { ingestionEnv } from './env';
import type { PipelineOutput } from './pipelines/types';

export interface GraphOutcome {
  nodes: number;
  edges: number;
  /** Whether claims were extracted, why not, or why the pass failed. */
  note?: string;
  /** Per content document (in order): `entity_ids`, `relation_ids`, `claim_ids`, when any were found. */
  backReferences?: Record<string, string[]>[];
}

/** A file's graph to store (its writes, at most 10,000 nodes and edges each), or its outcome already. */
export type FileGraph =
  | { writes: GraphWrite[]; note: string; backReferences?: Record<string, string[]>[] }
  | { outcome: GraphOutcome };

/**
 * Starts the extraction (no side effect) of each file's graph, one file after another as the graph pass
 * takes them, so that it runs while the files' content is fed. A failure stays in its file's promise for
 * `fileGraph` to report.
 */
export function extractDocuments(
  deps: IngestionDeps,
  files: { sourceDocId: string; output: PipelineOutput }[],
  extractors: Promise<Extractors> = extractorsOf(deps),
): Promise<DocumentGraph | undefined>[] {
  let previous: Promise<unknown> = Promise.resolve();
  return files.map(({ sourceDocId, output }) => {
    const extracted = previous.then(async () => {
      if (output.segments.length === 0) return undefined;
      const { entities, claims } = await extractors;
      return extractDocumentGraph({
        sourceDocId,
        segments: output.segments,
        entities,
        claims,
        concurrency: ingestionEnv.extractionConcurrency,
      });
    });
    // Handling it here marks it handled: a failure waits for `fileGraph` instead of crashing the process.
    previous = extracted.catch(() => undefined);
    return extracted;
  });
}

/** The extractors of a tenant's graph pass: its own when they depend on it, else the process's. */
export function extractorsOf(deps: IngestionDeps, tenantFullId?: string): Promise<Extractors> {
  if (deps.extractorsFor && tenantFullId !== undefined) return deps.extractorsFor(tenantFullId);
  return Promise.resolve({ entities: deps.entities, claims: deps.claims });
}

const failedPass = (sourceDocId: string, error: unknown): GraphOutcome => {
  log.warn('graph extraction failed; the upload stays indexed without a graph', {
    source: sourceDocId,
    error,
  });
  return { nodes: 0, edges: 0, note: `graph extraction failed: ${(error as Error).message}` };
};

/**
 * Cross-modal linking of one media file once all its segments' entities are known (document 1, step 5): each
 * node's mentions in transcript, caption and OCR segments, linked by `same_as` edges.
 */
export function crossModalEdges(
  sourceDocId: string,
  output: PipelineOutput,
  graph: DocumentGraph,
): CrossModalEdge[] {
  const media = new Map(
    output.segments
      .filter((segment) => segment.source !== undefined && segment.source !== 'text')
      .map((segment) => [segment.segment_id, segment]),
  );
  if (media.size === 0) return [];
  const mentions: CrossModalMention[] = [];
  for (const node of graph.nodes) {
    const nodeId = normalizeNodeId(node.name);
    for (const mention of node.mentions) {
      const segment = media.get(mention.segment_id);
      if (!segment || mention.source_doc_id !== sourceDocId) continue;
      mentions.push({
        node_id: nodeId,
        name: node.name,
        label: node.label,
        modality: segment.modality,
        source: segment.source!,
        segment_id: segment.segment_id,
        ts_start: mention.ts_start,
        ts_end: mention.ts_end,
        text: segment.text,
      });
    }
  }
  return linkCrossModal({ sourceDocId, mentions });
}

type References = Record<'entity_ids' | 'relation_ids' | 'claim_ids', string[]>;

/** Each content document's back-references: the union of those of the segments it carries. */
function documentReferences(
  output: PipelineOutput,
  bySegment: (segmentId: string) => References | undefined,
): References[] {
  const carried =
    output.documentSegments ??
    output.documents.map((_, position) => {
      const segment = output.segments[position];
      return segment ? [segment.segment_id] : [];
    });
  return carried.map((ids) => {
    const union: References = { entity_ids: [], relation_ids: [], claim_ids: [] };
    for (const id of ids) {
      const found = bySegment(id);
      if (!found) continue;
      for (const key of ['entity_ids', 'relation_ids', 'claim_ids'] as const) {
        for (const value of found[key]) if (!union[key].includes(value)) union[key].push(value);
      }
    }
    return union;
  });
}

/** A file's extracted graph (with its cross-modal `same_as` edges) as writes, and its documents' back-references. */
export async function fileGraph(
  deps: IngestionDeps,
  sourceDocId: string,
  output: PipelineOutput,
  extracted: Promise<DocumentGraph | undefined>,
  entitiesName: string = deps.entities.name,
): Promise<FileGraph> {
  try {
    const graph = await extracted;
    if (!graph) return { outcome: { nodes: 0, edges: 0 } };
    const linked = crossModalEdges(sourceDocId, output, graph);
    const edges = [
      ...graph.edges,
      ...linked.map(({ edge_id: _, source_node_id: __, target_node_id: ___, ...edge }) => edge),
    ];
    const writes: GraphWrite[] = [];
    for (let start = 0; start < Math.max(graph.nodes.length, edges.length); start += MAX_ITEMS) {
      writes.push(
        GraphWrite.parse({
          source_doc_id: sourceDocId,
          nodes: graph.nodes.slice(start, start + MAX_ITEMS),
          edges: edges.slice(start, start + MAX_ITEMS),
        }),
      );
    }
    const sameAs = new Map<string, string[]>();
    for (const edge of linked)
      sameAs.set(edge.segment_id, [...(sameAs.get(edge.segment_id) ?? []), edge.edge_id]);
    const references = documentReferences(output, (segmentId) => {
      const found = graph.segments[segmentId];
      const linkedHere = sameAs.get(segmentId) ?? [];
      if (!found && linkedHere.length === 0) return undefined;
      return {
        entity_ids: found?.entity_ids ?? [],
        relation_ids: [...(found?.relation_ids ?? []), ...linkedHere],
        claim_ids: found?.claim_ids ?? [],
      };
    });
    const anything = references.some(
      (r) => r.entity_ids.length + r.relation_ids.length + r.claim_ids.length > 0,
    );
    return {
      writes,
      note: `claims ${graph.claims}; entities by ${entitiesName}${linked.length > 0 ? `; ${linked.length} cross-modal same_as edges` : ''}`,
      backReferences: anything ? references : undefined,
    };
  } catch (error) {
    return { outcome: failedPass(sourceDocId, error) };
  }
}

/**
 * Stores the graphs of several files of a tenant in one upsert (one commit however many files) and answers
 * each file's outcome in order: its own counts, or why it has no graph.
 */
export async function storeGraphs(
  deps: IngestionDeps,
  tenant: TenantRef,
  files: { sourceDocId: string; graph: FileGraph }[],
): Promise<GraphOutcome[]> {
  const writes = files.flatMap(({ graph }) => ('writes' in graph ? graph.writes : []));
  let counts: { nodes_upserted: number; edges_upserted: number }[] = [];
  try {
    if (writes.length > 0) counts = await upsertGraphs(deps.graph, tenant, writes);
  } catch (error) {
    return files.map(({ sourceDocId, graph }) =>
      'writes' in graph ? failedPass(sourceDocId, error) : graph.outcome,
    );
  }
  let next = 0;
  return files.map(({ graph }) => {
    if (!('writes' in graph)) return graph.outcome;
    const own = counts.slice(next, next + graph.writes.length);
    next += graph.writes.length;
    return {
      nodes: own.reduce((sum, count) => sum + count.nodes_upserted, 0),
      edges: own.reduce((sum, count) => sum + count.edges_upserted, 0),
      note: graph.note,
      backReferences: graph.backReferences,
    };
  });
}
