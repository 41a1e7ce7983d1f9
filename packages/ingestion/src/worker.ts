/**
 * The ingestion worker: reads queue messages (job messages and S3 object-created notifications), claims the
 * job, runs each file through its pipeline, feeds the content index, runs the server-side graph pass and
 * reports every step on the job's task. Redelivered messages find the job ended and are acknowledged.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { type DocumentInput, indexSources, patchDocuments } from '@tessera/content';
import { failpoint, faultpoint, HttpError, log, mapBounded, stallpoint, withDeadline } from '@tessera/core';
import { QUEUED_INGESTION_LEASE_MS, TaskReporter as Reporter, type TaskReporter } from '@tessera/events';
import type { SQSRecord } from 'aws-lambda';
import type { IngestionDeps } from './deps';
import { ingestionEnv } from './env';
import { ContentError } from './errors';
import { extractDocuments, extractGraph } from './extraction';
import { type SourceRecord, sourceKey } from './jobs';
import { jobOfIncomingKey } from './keys';
import {
  type FileResult,
  type JobFile,
  JobMessage,
  type JobRecord,
  TERMINAL_STATES,
  type UploadResult,
} from './model';
import type { PipelineOutput } from './pipelines/types';
import { extensionOf, pipelineFor } from './routing';
import { enqueueJob } from './submit';

/** A claimed job keeps its tenant slot at most this long if its worker dies (then the slot frees itself). */
const SLOT_LEASE_MS = 15 * 60_000;

/** The jobs a queue message asks for: a job message names one; an S3 notification names its objects' jobs. */
export function jobsOfMessage(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`Queue message is not JSON: ${body.slice(0, 200)}`);
  }
  const job = JobMessage.safeParse(parsed);
  if (job.success) return [job.data.job_id];
  const records = (parsed as { Records?: { eventName?: string; s3?: { object?: { key?: string } } }[] })
    .Records;
  if (Array.isArray(records)) {
    return records
      .filter((record) => record.eventName?.startsWith('ObjectCreated'))
      .map((record) =>
        jobOfIncomingKey(decodeURIComponent((record.s3?.object?.key ?? '').replace(/\+/g, ' '))),
      )
      .filter((id): id is string => id !== undefined);
  }
  // S3's test notification when a bucket is wired to the queue, and anything else: nothing to run.
  if ((parsed as { Event?: string }).Event === 's3:TestEvent') return [];
  throw new Error(`Queue message is neither a job nor an S3 notification: ${body.slice(0, 200)}`);
}

/** Lambda's SQS handler contract: failed messages are reported so only they are redelivered. */
export async function processRecords(
  deps: IngestionDeps,
  records: SQSRecord[],
  remainingMs?: () => number,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of records) {
    try {
      for (const jobId of jobsOfMessage(record.body)) {
        const left = remainingMs?.();
        await runJob(
          deps,
          jobId,
          left === undefined ? undefined : left - Math.min(ATTEMPT_MARGIN_MS, left / 10),
        );
      }
    } catch (error) {
      log.error('ingestion message failed; it will be redelivered', {
        message: record.messageId,
        receives: record.attributes?.ApproximateReceiveCount,
        error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

/** Messages the dead-letter queue received: their jobs end `failed`. */
export async function processDeadLetters(deps: IngestionDeps, records: SQSRecord[]): Promise<void> {
  for (const record of records) {
    let jobIds: string[];
    try {
      jobIds = jobsOfMessage(record.body);
    } catch (error) {
      log.error('unreadable message in the ingestion dead-letter queue', {
        message: record.messageId,
        error,
      });
      continue;
    }
    for (const jobId of jobIds) {
      const message = `Job ${jobId} was delivered ${ingestionEnv.maxDeliveries} times without finishing and went to the dead-letter queue`;
      await endJob(
        deps,
        jobId,
        'failed',
        { error: message, error_type: 'IngestPipelineError' },
        {
          type: 'error',
          error_type: 'IngestPipelineError',
          error_message: message,
          recoverable: false,
        },
      );
    }
  }
}

async function endJob(
  deps: IngestionDeps,
  jobId: string,
  state: 'complete' | 'failed' | 'cancelled',
  fields: Partial<JobRecord>,
  event: Parameters<TaskReporter['report']>[0],
  reporter?: TaskReporter,
): Promise<void> {
  if (!(await deps.jobs.settle(jobId, state, fields))) return;
  if (reporter) {
    await reporter.report(event).finally(() => reporter.stop());
    return;
  }
  await deps.events.append(jobId, event).catch((error: unknown) => {
    // The task already ended (a stopped task's stream has closed): the job record still says how it ended.
    log.warn('could not report the end of an ingestion job', { job: jobId, error });
  });
}

/** An attempt gives up this long (at most a tenth of its time) before its function's time runs out. */
const ATTEMPT_MARGIN_MS = 30_000;

/**
 * Runs one job unless it has ended, is cancelled, or must wait for a tenant slot or a live producer. An
 * attempt still working after `timeMs` hands the job back and fails, so the message is delivered again.
 */
export async function runJob(deps: IngestionDeps, jobId: string, timeMs?: number): Promise<void> {
  const job = await deps.jobs.get(jobId);
  if (!job) {
    log.warn('queue message for an unknown ingestion job', { job: jobId });
    return;
  }
  if (TERMINAL_STATES.includes(job.state)) return;
  const task = await deps.events.get(jobId);
  if (task?.cancel_requested && job.state === 'queued') {
    const reason = task.cancel_reason ?? 'cancelled';
    await endJob(
      deps,
      jobId,
      'cancelled',
      { reason },
      { type: 'status', state: 'cancelled', message: reason },
    );
    return;
  }
  // A holder of its own per attempt: a duplicate delivery must not free the slot of the attempt running.
  const holder = `${jobId}#${randomUUID()}`;
  if (!(await deps.jobs.acquireSlot(job.tenant_id, holder, ingestionEnv.tenantSlots, SLOT_LEASE_MS))) {
    // Every slot of the tenant is busy: back on the queue (a new message, so waiting burns no deliveries).
    await enqueueJob(deps, jobId, ingestionEnv.slotRetrySeconds);
    return;
  }
  try {
    const reporter = await Reporter.attach(deps.events, { taskId: jobId, from: jobId });
    if (!reporter) {
      // Another worker holds the job's lease (a duplicate delivery, or one that died): look again once that
      // lease could have lapsed; waiting on a new message burns none of this one's deliveries.
      const holder = await deps.events.get(jobId);
      if (!holder || holder.ended) return;
      const seconds = Math.ceil((holder.lease_expires_at - Date.now()) / 1000) + 1;
      await enqueueJob(deps, jobId, Math.min(900, Math.max(1, seconds)));
      return;
    }
    const claimed = await deps.jobs.claim(jobId);
    if (!claimed) {
      reporter.stop();
      return;
    }
    try {
      const attempt = work(deps, claimed, reporter);
      await (timeMs === undefined
        ? attempt
        : withDeadline(
            attempt,
            timeMs,
            () =>
              new Error(
                `Ingestion job ${jobId} did not finish within its attempt's ${Math.round(timeMs / 1000)} s`,
              ),
          ));
    } catch (error) {
      // The job goes back to the queue: its lease returns to the job (as while it was queued), so the
      // redelivery takes it up at once; the task stays open.
      await reporter.handBack(jobId, QUEUED_INGESTION_LEASE_MS).catch(() => undefined);
      throw error;
    }
  } finally {
    await deps.jobs.releaseSlot(job.tenant_id, holder);
  }
}

async function work(deps: IngestionDeps, job: JobRecord, reporter: TaskReporter): Promise<void> {
  const started = performance.now();
  await reporter.report({
    type: 'status',
    state: 'working',
    phase: 'running',
    message: job.deliveries > 1 ? `delivery ${job.deliveries}` : undefined,
  });
  const results: FileResult[] = [];
  let cancelled: string | undefined;
  for (let start = 0; start < job.files.length && cancelled === undefined; start += WINDOW) {
    // Files are read and run through their pipelines a few at a time (reads and lookups overlap), in order.
    const window = job.files.slice(start, start + WINDOW);
    const known = await deps.jobs.sources(job.tenant_id, window);
    const read = windowReader(deps, window);
    const slots = await mapBounded(window, PREPARE_LANES, async (file, i) => {
      // A run over several files stops between files; a one-file job that started runs to completion.
      if (start + i > 0 && reporter.cancelled) {
        cancelled ??= reporter.reason ?? 'cancelled';
        return undefined;
      }
      return prepareFile(deps, job, file, await read(file), known.get(sourceKey(file.profile, file.name)));
    });
    const prepared = slots.filter((item): item is Prepared => item !== undefined);
    const outcomes = await finishFiles(deps, job, prepared);
    if (outcomes.length === 0) continue;
    results.push(...outcomes);
    if (job.files.length > 1) {
      // A file that failed does not end a run of several: its failure is reported, and the run goes on.
      for (const outcome of outcomes) {
        if (outcome.status !== 'failed') continue;
        const cause = outcome.error ?? outcome.error_type ?? 'failed';
        await reporter.report({
          type: 'error',
          error_type: 'ContentProcessingError',
          error_message: cause.includes(outcome.source_doc_id) ? cause : `${outcome.source_doc_id}: ${cause}`,
          recoverable: true,
        });
      }
    }
    // One progress event a window of files, so a large run does not spend its time reporting.
    await reporter.report({
      type: 'progress',
      current: results.length,
      total: job.files.length,
      percentage: Math.round((results.length / job.files.length) * 100),
      step: outcomes.at(-1)!.source_doc_id,
      details: outcomes.length === 1 ? { ...outcomes[0] } : { files: outcomes },
    });
  }
  if (cancelled !== undefined) {
    const result = { ...summarize(job, results, started, 'cancelled'), reason: cancelled };
    await endJob(
      deps,
      job.job_id,
      'cancelled',
      { reason: cancelled, result },
      { type: 'status', state: 'cancelled', message: cancelled },
      reporter,
    );
    return;
  }
  const failed = results.filter((result) => result.status === 'failed');
  if (failed.length === results.length) {
    const first = failed[0]!;
    const message =
      failed.length === 1 ? first.error! : `All ${failed.length} files failed; first: ${first.error}`;
    const errorType = first.error_type ?? 'IngestPipelineError';
    const result = { ...summarize(job, results, started, 'failed'), error: message, error_type: errorType };
    await endJob(
      deps,
      job.job_id,
      'failed',
      { error: message, error_type: errorType, result },
      {
        type: 'error',
        error_type: errorType,
        error_message: message,
        recoverable: false,
      },
      reporter,
    );
    return;
  }
  const result = summarize(job, results, started, 'complete');
  await endJob(
    deps,
    job.job_id,
    'complete',
    { result },
    {
      type: 'complete',
      result: { ...result },
      summary: `${result.documents_fed} documents fed from ${results.length - failed.length} of ${results.length} files`,
      execution_time_seconds: result.processing_time,
    },
    reporter,
  );
}

function summarize(
  job: JobRecord,
  results: FileResult[],
  started: number,
  status: UploadResult['status'],
): UploadResult {
  const sum = (field: 'chunks_created' | 'documents_fed' | 'graph_nodes' | 'graph_edges') =>
    results.reduce((total, result) => total + result[field], 0);
  const extraction = results.map((result) => result.extraction).find((note) => note !== undefined);
  return {
    status,
    job_id: job.job_id,
    video_id: job.files.length === 1 ? job.files[0]!.name : job.job_id,
    chunks_created: sum('chunks_created'),
    documents_fed: sum('documents_fed'),
    graph_nodes: sum('graph_nodes'),
    graph_edges: sum('graph_edges'),
    processing_time: Math.round(performance.now() - started) / 1000,
    files_skipped: results.filter((result) => result.status === 'skipped').length,
    files_failed: results.filter((result) => result.status === 'failed').length,
    files: results,
    claims: extraction ?? 'not applicable: no text for the graph pass',
  };
}

/**
 * Reads the files of a window: files sharing an object (an upload's bundle) come from one ranged read of
 * the span they cover, read once; any other file is its own object.
 */
function windowReader(deps: IngestionDeps, window: JobFile[]): (file: JobFile) => Promise<Uint8Array> {
  const spans = new Map<string, { from: number; to: number; bytes?: Promise<Uint8Array> }>();
  for (const file of window) {
    if (file.offset === undefined) continue;
    const span = spans.get(file.key) ?? { from: file.offset, to: file.offset };
    span.from = Math.min(span.from, file.offset);
    span.to = Math.max(span.to, file.offset + file.size);
    spans.set(file.key, span);
  }
  const get = async (key: string, range?: string) => {
    const answer = await deps.s3.send(new GetObjectCommand({ Bucket: deps.bucket, Key: key, Range: range }));
    return answer.Body!.transformToByteArray();
  };
  return async (file) => {
    const span = spans.get(file.key);
    if (!span || file.offset === undefined) return get(file.key);
    span.bytes ??= get(file.key, `bytes=${span.from}-${span.to - 1}`);
    const bytes = await span.bytes;
    return bytes.subarray(file.offset - span.from, file.offset - span.from + file.size);
  };
}

/** The fields the graph pass sets on each content document. */
const BACK_REFERENCES = ['entity_ids', 'relation_ids', 'claim_ids'];

/** Files whose content is fed in one commit (per profile): many small files cost one write. */
const WINDOW = 256;
/** Files of a window read and prepared at once. */
const PREPARE_LANES = 8;

/** A file read and run through its pipeline; `outcome` is set when nothing is left to do for it. */
interface Prepared {
  file: JobFile;
  base: FileResult;
  hash: string;
  output?: PipelineOutput;
  outcome?: FileResult;
}

/** Reads a file and runs its pipeline, unless its content was already ingested. */
async function prepareFile(
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
 * Feeds the prepared files (one commit per profile) while their graphs are extracted, then upserts each
 * one's graph and records its content hash; answers every file's outcome in order.
 */
async function finishFiles(deps: IngestionDeps, job: JobRecord, prepared: Prepared[]): Promise<FileResult[]> {
  const pending = prepared.filter((item) => item.outcome === undefined);
  // The graph extraction (on the tagging threads) runs while the content is fed.
  const extracted = extractDocuments(
    deps,
    pending.map((item) => ({ sourceDocId: item.file.name, output: item.output! })),
  );
  for (const profile of new Set(pending.map((item) => item.file.profile))) {
    const group = pending.filter((item) => item.file.profile === profile);
    try {
      await indexSources(deps.content, {
        tenant: job.tenant_id,
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
  const patches = new Map<string, { sourceDocId: string; documents: DocumentInput[] }[]>();
  for (const [index, item] of pending.entries()) {
    if (item.outcome) continue;
    const { file, output } = item;
    const graph = await extractGraph(deps, job.tenant_id, file.name, output!, extracted[index]);
    if (graph.backReferences) {
      const sources = patches.get(file.profile) ?? [];
      sources.push({
        sourceDocId: file.name,
        documents: output!.documents.map((document, index) => ({
          ...document,
          fields: graph.backReferences![index]!,
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
  }
  // Only the back-reference fields change, in one commit per profile: the stored documents keep their vectors.
  for (const [profile, sources] of patches) {
    await patchDocuments(deps.content, {
      tenant: job.tenant_id,
      profile,
      fields: BACK_REFERENCES,
      sources,
    });
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
