/**
 * The run of a claimed job: its files a window of 256 at a time (read, run through their pipelines, fed,
 * their graphs stored), one progress event a window, and the job's end: complete, failed when every file
 * failed, or cancelled between files.
 */
import { mapBounded } from '@tessera/core';
import type { TaskReporter } from '@tessera/events';
import type { IngestionDeps } from './deps';
import { ingestionEnv } from './env';
import { HandOffError } from './errors';
import { finishFiles, type Prepared, prepareFile } from './files';
import type { FileResult, JobFile, JobRecord, UploadResult } from './model';
import { sourceKey } from './ports';
import { readsFile } from './routing';
import { endJob } from './settle';
import { windowReader } from './window-reader';

/** Files whose content is fed in one commit (per profile) and whose graphs are stored in one. */
const WINDOW = 256;
/** Files of a window read and prepared at once. */
const PREPARE_LANES = 8;

/** At most `limit` tasks at once, in call order. */
export class Lanes {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** Media files analysed at once by this process, whatever job they belong to: each runs ffmpeg and OCR. */
const mediaLanes = new Lanes(ingestionEnv.mediaConcurrency);

/**
 * Runs the job's files. `deadline` (epoch milliseconds) is when the attempt must end: a media file that would
 * run past it is not started, and the job goes to the media worker (`HandOffError`) when there is one.
 */
export async function runWindows(
  deps: IngestionDeps,
  job: JobRecord,
  reporter: TaskReporter,
  deadline?: number,
): Promise<void> {
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
    const [known, profiles] = await Promise.all([
      deps.jobs.sources(job.tenant_id, window),
      deps.content.profilesFor(job.tenant_id),
    ]);
    // A profile gone since the submit fails its file when it is prepared; its bytes are read as a document's.
    const media = (file: JobFile) => {
      const profile = profiles.get(file.profile);
      return profile !== undefined && readsFile(profile);
    };
    // Media files are spooled one by one from their own ranges; the others share the window's reads.
    const read = windowReader(
      deps,
      window.filter((file) => !media(file)),
    );
    let handingOff = false;
    const slots = await mapBounded(window, PREPARE_LANES, async (file, i) => {
      // A run over several files stops between files; a one-file job that started runs to completion.
      const stop = () => {
        if (handingOff) return true;
        if (start + i > 0 && reporter.cancelled) {
          cancelled ??= reporter.reason ?? 'cancelled';
          return true;
        }
        return false;
      };
      if (stop()) return undefined;
      const prepare = () =>
        prepareFile(deps, job, file, read, known.get(sourceKey(file.profile, file.name)), { deadline }).catch(
          (error: unknown) => {
            if (error instanceof HandOffError) handingOff = true;
            throw error;
          },
        );
      if (!media(file)) return prepare();
      // Waiting for a media lane is between files: a cancellation recorded meanwhile lands here.
      return mediaLanes.run(async () => (stop() ? undefined : prepare()));
    });
    const prepared = slots.filter((item): item is Prepared => item !== undefined);
    const outcomes = await finishFiles(deps, job, prepared);
    if (outcomes.length === 0) continue;
    results.push(...outcomes);
    if (job.files.length > 1) await reportFailedFiles(reporter, outcomes);
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
  await endRun(deps, job, reporter, results, started, cancelled);
}

/** A file that failed does not end a run of several: its failure is reported, and the run goes on. */
async function reportFailedFiles(reporter: TaskReporter, outcomes: FileResult[]): Promise<void> {
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

async function endRun(
  deps: IngestionDeps,
  job: JobRecord,
  reporter: TaskReporter,
  results: FileResult[],
  started: number,
  cancelled: string | undefined,
): Promise<void> {
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
      { type: 'error', error_type: errorType, error_message: message, recoverable: false },
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

/** The upload response of the job (document 3), with every file's outcome. */
function summarize(
  job: JobRecord,
  results: FileResult[],
  started: number,
  status: UploadResult['status'],
): UploadResult {
  const sum = (field: 'chunks_created' | 'documents_fed' | 'graph_nodes' | 'graph_edges') =>
    results.reduce((total, result) => total + result[field], 0);
  const extraction = results.map((result) => result.extraction).find((note) => note !== undefined);
  // The upload response of one file names what its pipeline skipped, as the file's own result does.
  const only = job.files.length === 1 ? results[0] : undefined;
  return {
    status,
    job_id: job.job_id,
    // Document 1's name for what the upload produced: the file of a one-file job, else the job.
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
    ...(only?.skipped && { skipped: only.skipped }),
    ...(only?.speech_spans && { speech_spans: only.speech_spans }),
  };
}
