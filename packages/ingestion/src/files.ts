/**
 * The work on a window's files: each is hashed and, unless its content was indexed already, run through
 * its pipeline (prepare); then their graphs are extracted and stored in one upsert, the window's documents
 * fed with their back-references (one commit per profile) and the hashes recorded.
 */
import { createHash } from 'node:crypto';
import { indexSources } from '@tessera/content';
import { failpoint, faultpoint, HttpError, NotFoundError, stallpoint } from '@tessera/core';
import { type GuardedTenant, incarnationOf, requireTenant } from '@tessera/tenancy';
import type { IngestionDeps } from './deps';
import { ingestionEnv } from './env';
import { ContentError, PipelineError } from './errors';
import { extractDocuments, extractorsOf, fileGraph, storeGraphs } from './extraction';
import type { FileResult, JobFile, JobRecord } from './model';
import type { PipelineContext, PipelineOutput } from './pipelines/types';
import type { SourceRecord } from './ports';
import { extensionOf, pipelineFor } from './routing';
import { withSpooledBlob } from './spool';

/** A file read and run through its pipeline; `outcome` is set when nothing is left to do for it. */
export interface Prepared {
  file: JobFile;
  base: FileResult;
  hash: string;
  output?: PipelineOutput;
  outcome?: FileResult;
}

export interface PrepareOptions {
  /** Epoch milliseconds by which the attempt must end (none: no limit). */
  deadline?: number;
  signal?: AbortSignal;
}

/**
 * Runs a file's pipeline, unless its content was already ingested. Text and code are read whole; media is
 * spooled to a temporary file in ranged reads (removed afterwards). A file whose content is refused ends
 * failed with its reason; a job that needs the media worker throws `HandOffError`.
 */
export async function prepareFile(
  deps: IngestionDeps,
  job: JobRecord,
  file: JobFile,
  read: (file: JobFile) => Promise<Uint8Array>,
  previous: SourceRecord | undefined,
  options: PrepareOptions = {},
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
  /** Indexed already: by this job before a crash or a hand-off (reported as indexed), or by an earlier one. */
  const known = (hash: string): Prepared | undefined => {
    if (previous?.content_hash !== hash) return undefined;
    const outcome: FileResult =
      previous.job_id === job.job_id
        ? { ...base, chunks_created: previous.chunks, documents_fed: previous.chunks }
        : { ...base, status: 'skipped' };
    return { file, base, hash, outcome };
  };
  let hash = '';
  try {
    const profile = (await deps.content.profilesFor(job.tenant_id)).get(file.profile);
    if (!profile) {
      throw new ContentError(
        'UnknownProfile',
        `Profile '${file.profile}' no longer exists for tenant '${job.tenant_id}'`,
      );
    }
    const pipeline = pipelineFor(profile);
    const context: PipelineContext = {
      name: file.name,
      extension: extensionOf(file.name),
      profile,
      media: deps.media,
      // A job that can go to the media worker goes there rather than outlive its attempt.
      handOffBefore: deps.mediaTasks ? (options.deadline ?? Number.POSITIVE_INFINITY) : undefined,
      signal: options.signal,
    };
    if (pipeline.reads === 'bytes') {
      const bytes = await read(file);
      hash = createHash('sha256').update(bytes).digest('hex');
      return known(hash) ?? { file, base, hash, output: await pipeline.run({ ...context, bytes }) };
    }
    return await withSpooledBlob(
      deps.blobs,
      file,
      async (spooled) => {
        hash = spooled.hash;
        return (
          known(hash) ?? {
            file,
            base,
            hash,
            output: await pipeline.run({ ...context, file: spooled.path, size: file.size }),
          }
        );
      },
      { dir: ingestionEnv.mediaSpoolDir, signal: options.signal },
    );
  } catch (error) {
    if (error instanceof ContentError) {
      // Document 3: a start-run reports a file whose processing failed and goes on with the others.
      const errorType =
        error instanceof PipelineError && job.origin === 'start' ? 'ContentProcessingError' : error.errorType;
      return {
        file,
        base,
        hash,
        outcome: { ...base, status: 'failed', error: error.message, error_type: errorType },
      };
    }
    throw error;
  }
}

/**
 * Stores the graphs of the prepared files (one upsert) as soon as they are extracted, then feeds their
 * documents with the graphs' back-references (one commit per profile: a document is written once, with every
 * field), and records each file's content hash; answers every file's outcome in order. The tenant is guarded
 * once for the window, when there is anything to write.
 */
export async function finishFiles(
  deps: IngestionDeps,
  job: JobRecord,
  prepared: Prepared[],
): Promise<FileResult[]> {
  const pending = prepared.filter((item) => item.outcome === undefined);
  let tenant: GuardedTenant | undefined;
  if (pending.length > 0) {
    try {
      tenant = await requireTenant(deps.content.tenancy, job.tenant_id);
      // A tenant deleted and created again since the job was submitted is another tenant.
      if (job.tenant_incarnation !== undefined && incarnationOf(tenant.record) !== job.tenant_incarnation) {
        throw new NotFoundError(
          `Tenant '${job.tenant_id}' was deleted after job ${job.job_id} was submitted; the tenant of that name now is another`,
        );
      }
    } catch (error) {
      // The tenant was deleted (or deleted and created again) meanwhile: every redelivery would be refused too.
      if (!(error instanceof HttpError && error.status < 500)) throw error;
      for (const item of pending) fail(item, error);
    }
  }
  const stored = pending.filter((item) => item.outcome === undefined);
  // The graph extraction (on the tagging threads) runs with the tenant's extractors (its LLM endpoint for
  // claims); a failure to build them fails each file's graph pass, not the job.
  const extractors = extractorsOf(deps, job.tenant_id);
  extractors.catch(() => undefined);
  const extracted = extractDocuments(
    deps,
    stored.map((item) => ({ sourceDocId: item.file.name, output: item.output! })),
    extractors,
  );
  const entitiesName = (await extractors.catch(() => undefined))?.entities.name;
  const graphs = await Promise.all(
    stored.map((item, index) =>
      fileGraph(deps, item.file.name, item.output!, extracted[index]!, entitiesName),
    ),
  );
  const outcomes =
    stored.length === 0
      ? []
      : await storeGraphs(
          deps,
          tenant!,
          stored.map((item, index) => ({ sourceDocId: item.file.name, graph: graphs[index]! })),
        );
  const graphOf = new Map(stored.map((item, index) => [item, outcomes[index]!]));
  for (const profile of new Set(stored.map((item) => item.file.profile))) {
    const group = stored.filter((item) => item.file.profile === profile);
    try {
      await indexSources(deps.content, {
        tenant: tenant!,
        profile,
        sources: group.map((item) => {
          const references = graphOf.get(item)!.backReferences;
          return {
            sourceDocId: item.file.name,
            documents: references
              ? item.output!.documents.map((document, position) => ({
                  ...document,
                  fields: { ...document.fields, ...references[position] },
                }))
              : item.output!.documents,
          };
        }),
      });
    } catch (error) {
      // The domain refusing (the tenant was deleted meanwhile, say) will refuse every redelivery too.
      if (!(error instanceof HttpError && error.status < 500)) throw error;
      for (const item of group) fail(item, error);
    }
  }
  failpoint('ingestion.after_feed');
  for (const item of stored) {
    if (item.outcome) continue;
    const graph = graphOf.get(item)!;
    item.outcome = {
      ...item.base,
      ...item.output!.report,
      chunks_created: item.output!.documents.length,
      documents_fed: item.output!.documents.length,
      graph_nodes: graph.nodes,
      graph_edges: graph.edges,
      extraction: graph.note,
    };
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

function fail(item: Prepared, error: HttpError): void {
  item.outcome = { ...item.base, status: 'failed', error: error.message, error_type: error.name };
}
