/**
 * The work on a window's files: each is hashed and, unless its content was indexed already, run through
 * its pipeline (prepare); then the window's documents are fed (one commit per profile) while their graphs
 * are extracted, the graphs stored in one upsert, the back-references patched and the hashes recorded.
 */
import { createHash } from 'node:crypto';
import { type DocumentInput, indexSources, patchDocuments } from '@tessera/content';
import { failpoint, faultpoint, HttpError, NotFoundError, stallpoint } from '@tessera/core';
import { type GuardedTenant, incarnationOf, requireTenant } from '@tessera/tenancy';
import type { IngestionDeps } from './deps';
import { ContentError } from './errors';
import { extractDocuments, fileGraph, storeGraphs } from './extraction';
import type { FileResult, JobFile, JobRecord } from './model';
import type { PipelineOutput } from './pipelines/types';
import type { SourceRecord } from './ports';
import { extensionOf, pipelineFor } from './routing';

/** The fields the graph pass sets on each content document. */
const BACK_REFERENCES = ['entity_ids', 'relation_ids', 'claim_ids'];

/** A file read and run through its pipeline; `outcome` is set when nothing is left to do for it. */
export interface Prepared {
  file: JobFile;
  base: FileResult;
  hash: string;
  output?: PipelineOutput;
  outcome?: FileResult;
}

/** Runs a file's pipeline, unless its content was already ingested. */
export async function prepareFile(
  deps: IngestionDeps,
  job: JobRecord,
  file: JobFile,
  bytes: Uint8Array,
  previous: SourceRecord | undefined,
): Promise<Prepared> {
  faultpoint(`ingestion.file:${file.name}`);
  await stallpoint(`ingestion.file:${file.name}`);
  const base: FileResult = {
    source_doc_id: file.name,
    profile: file.profile,
    status: 'indexed',
    chunks_created: 0,
    documents_fed: 0,
    graph_nodes: 0,
    graph_edges: 0,
  };
  const hash = createHash('sha256').update(bytes).digest('hex');
  if (previous?.content_hash === hash) {
    // Indexed already: by this job before a crash (report it as indexed), or by an earlier one (skipped).
    const outcome: FileResult =
      previous.job_id === job.job_id
        ? { ...base, chunks_created: previous.chunks, documents_fed: previous.chunks }
        : { ...base, status: 'skipped' };
    return { file, base, hash, outcome };
  }
  const profile = deps.content.profiles.get(file.profile)!;
  try {
    const output = await pipelineFor(profile).run({
      bytes,
      name: file.name,
      extension: extensionOf(file.name),
    });
    return { file, base, hash, output };
  } catch (error) {
    if (error instanceof ContentError) {
      return {
        file,
        base,
        hash,
        outcome: { ...base, status: 'failed', error: error.message, error_type: error.errorType },
      };
    }
    throw error;
  }
}

/**
 * Feeds the prepared files (one commit per profile) while their graphs are extracted, then stores the
 * graphs (one upsert) and records each file's content hash; answers every file's outcome in order. The
 * tenant is guarded once for the window, when there is anything to write.
 */
export async function finishFiles(
  deps: IngestionDeps,
  job: JobRecord,
  prepared: Prepared[],
): Promise<FileResult[]> {
  const pending = prepared.filter((item) => item.outcome === undefined);
  let guarded: Promise<GuardedTenant> | undefined;
  const tenant = () => {
    guarded ??= requireTenant(deps.content.tenancy, job.tenant_id).then((found) => {
      // A tenant deleted and created again since the job was submitted is another tenant.
      if (job.tenant_incarnation !== undefined && incarnationOf(found.record) !== job.tenant_incarnation) {
        throw new NotFoundError(
          `Tenant '${job.tenant_id}' was deleted after job ${job.job_id} was submitted; the tenant of that name now is another`,
        );
      }
      return found;
    });
    return guarded;
  };
  // The graph extraction (on the tagging threads) runs while the content is fed.
  const extracted = extractDocuments(
    deps,
    pending.map((item) => ({ sourceDocId: item.file.name, output: item.output! })),
  );
  for (const profile of new Set(pending.map((item) => item.file.profile))) {
    const group = pending.filter((item) => item.file.profile === profile);
    try {
      await indexSources(deps.content, {
        tenant: await tenant(),
        profile,
        sources: group.map((item) => ({ sourceDocId: item.file.name, documents: item.output!.documents })),
      });
    } catch (error) {
      // The domain refusing (the tenant was deleted meanwhile, say) will refuse every redelivery too.
      if (!(error instanceof HttpError && error.status < 500)) throw error;
      for (const item of group) {
        item.outcome = { ...item.base, status: 'failed', error: error.message, error_type: error.name };
      }
    }
  }
  failpoint('ingestion.after_feed');
  const fed = pending.filter((item) => item.outcome === undefined);
  const graphs = await Promise.all(
    pending.map(async (item, index) =>
      item.outcome ? undefined : fileGraph(deps, item.file.name, item.output!, extracted[index]!),
    ),
  );
  const outcomes =
    fed.length === 0
      ? []
      : await storeGraphs(
          deps,
          await tenant(),
          pending.flatMap((item, index) =>
            item.outcome ? [] : [{ sourceDocId: item.file.name, graph: graphs[index]! }],
          ),
        );
  const patches = new Map<string, { sourceDocId: string; documents: DocumentInput[] }[]>();
  fed.forEach((item, index) => {
    const { file, output } = item;
    const graph = outcomes[index]!;
    if (graph.backReferences) {
      const sources = patches.get(file.profile) ?? [];
      sources.push({
        sourceDocId: file.name,
        documents: output!.documents.map((document, position) => ({
          ...document,
          fields: graph.backReferences![position]!,
        })),
      });
      patches.set(file.profile, sources);
    }
    item.outcome = {
      ...item.base,
      chunks_created: output!.documents.length,
      documents_fed: output!.documents.length,
      graph_nodes: graph.nodes,
      graph_edges: graph.edges,
      extraction: graph.note,
    };
  });
  // Only the back-reference fields change, in one commit per profile: the stored documents keep their vectors.
  for (const [profile, sources] of patches) {
    await patchDocuments(deps.content, { tenant: await tenant(), profile, fields: BACK_REFERENCES, sources });
  }
  // Recorded once everything of the file is stored: a crash before this feeds the file again on redelivery.
  await deps.jobs.recordSources(
    job.tenant_id,
    pending
      .filter((item) => item.outcome!.status === 'indexed')
      .map((item) => ({
        profile: item.file.profile,
        name: item.file.name,
        record: {
          content_hash: item.hash,
          job_id: job.job_id,
          chunks: item.output!.documents.length,
          updated_at: Date.now(),
        },
      })),
  );
  return prepared.map((item) => item.outcome!);
}
