/**
 * The server-side graph pass of uploaded files (document 1): entities, then claims with the prior-entity
 * pool; the graphs of a window's files stored in one upsert; back-references for each content document.
 * Fail-safe: any failure leaves the files indexed with no graph, and says why.
 */
import { log } from '@tessera/core';
import { type DocumentGraph, extractDocumentGraph } from '@tessera/extractors';
import { GraphWrite, MAX_ITEMS, upsertGraphs } from '@tessera/graph';
import type { TenantRef } from '@tessera/tenancy';
import type { IngestionDeps } from './deps';
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
): Promise<DocumentGraph | undefined>[] {
  let previous: Promise<unknown> = Promise.resolve();
  return files.map(({ sourceDocId, output }) => {
    const extracted = previous.then(() =>
      output.segments.length === 0
        ? undefined
        : extractDocumentGraph({
            sourceDocId,
            segments: output.segments,
            entities: deps.entities,
            claims: deps.claims,
            concurrency: ingestionEnv.extractionConcurrency,
          }),
    );
    // Handling it here marks it handled: a failure waits for `fileGraph` instead of crashing the process.
    previous = extracted.catch(() => undefined);
    return extracted;
  });
}

const failedPass = (sourceDocId: string, error: unknown): GraphOutcome => {
  log.warn('graph extraction failed; the upload stays indexed without a graph', {
    source: sourceDocId,
    error,
  });
  return { nodes: 0, edges: 0, note: `graph extraction failed: ${(error as Error).message}` };
};

/** A file's extracted graph as writes, and its documents' back-references. */
export async function fileGraph(
  deps: IngestionDeps,
  sourceDocId: string,
  output: PipelineOutput,
  extracted: Promise<DocumentGraph | undefined>,
): Promise<FileGraph> {
  try {
    const graph = await extracted;
    if (!graph) return { outcome: { nodes: 0, edges: 0 } };
    const writes: GraphWrite[] = [];
    for (let start = 0; start < Math.max(graph.nodes.length, graph.edges.length); start += MAX_ITEMS) {
      writes.push(
        GraphWrite.parse({
          source_doc_id: sourceDocId,
          nodes: graph.nodes.slice(start, start + MAX_ITEMS),
          edges: graph.edges.slice(start, start + MAX_ITEMS),
        }),
      );
    }
    const references = output.segments.map((segment) => {
      const found = graph.segments[segment.segment_id];
      return {
        entity_ids: found?.entity_ids ?? [],
        relation_ids: found?.relation_ids ?? [],
        claim_ids: found?.claim_ids ?? [],
      };
    });
    const anything = references.some(
      (r) => r.entity_ids.length + r.relation_ids.length + r.claim_ids.length > 0,
    );
    return {
      writes,
      note: `claims ${graph.claims}; entities by ${deps.entities.name}`,
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
