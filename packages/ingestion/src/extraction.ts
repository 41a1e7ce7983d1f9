/**
 * The server-side graph pass of a finished upload (document 1): entities, then claims with the prior-entity
 * pool, upserted into the tenant's graph; back-references for each content document. Fail-safe: any
 * failure leaves the upload successful with no graph, and says why.
 */
import { log } from '@tessera/core';
import { type DocumentGraph, extractDocumentGraph } from '@tessera/extractors';
import { MAX_ITEMS, UpsertRequest, upsertGraph } from '@tessera/graph';
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

/**
 * Starts the extraction (no side effect) of each file's graph, one file after another as the graph pass
 * takes them, so that it runs while the files' content is fed; `extractGraph` then upserts each. A failure
 * stays in its file's promise for `extractGraph` to report.
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
    // Handling it here marks it handled: a failure waits for `extractGraph` instead of crashing the process.
    previous = extracted.catch(() => undefined);
    return extracted;
  });
}

export async function extractGraph(
  deps: IngestionDeps,
  tenantId: string,
  sourceDocId: string,
  output: PipelineOutput,
  extracted: Promise<DocumentGraph | undefined> = extractDocuments(deps, [{ sourceDocId, output }])[0]!,
): Promise<GraphOutcome> {
  try {
    const graph = await extracted;
    if (!graph) return { nodes: 0, edges: 0 };
    let nodes = 0;
    let edges = 0;
    for (let start = 0; start < Math.max(graph.nodes.length, graph.edges.length); start += MAX_ITEMS) {
      const counts = await upsertGraph(
        deps.graph,
        UpsertRequest.parse({
          tenant_id: tenantId,
          source_doc_id: sourceDocId,
          nodes: graph.nodes.slice(start, start + MAX_ITEMS),
          edges: graph.edges.slice(start, start + MAX_ITEMS),
        }),
      );
      nodes += counts.nodes_upserted;
      edges += counts.edges_upserted;
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
      nodes,
      edges,
      note: `claims ${graph.claims}; entities by ${deps.entities.name}`,
      backReferences: anything ? references : undefined,
    };
  } catch (error) {
    log.warn('graph extraction failed; the upload stays indexed without a graph', {
      source: sourceDocId,
      error,
    });
    return { nodes: 0, edges: 0, note: `graph extraction failed: ${(error as Error).message}` };
  }
}
