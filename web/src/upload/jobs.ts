/**
 * An upload job as the page shows it, and how each frame of its event stream moves it. Frames carry their
 * offset in the task's event log; a frame at or below the last one applied is a replay (a reconnection that
 * resumed earlier than needed) and changes nothing, so a stream that breaks and resumes shows no duplicate.
 */
import type { Events, Ingestion } from '@tessera/api';

export type JobPhase = 'uploading' | 'queued' | 'running' | 'complete' | 'failed' | 'cancelled';

export interface LogLine {
  offset: number;
  text: string;
  tone: 'info' | 'warn' | 'error';
}

export interface Job {
  /** The page's own id for the file, known before the runtime names the job. */
  key: string;
  name: string;
  size: number;
  /** `form`: posted through the web server; `presigned`: PUT straight to storage (large files). */
  route: 'form' | 'presigned';
  jobId?: string;
  phase: JobPhase;
  /** Bytes of the file sent so far. */
  sent: number;
  progress?: { current: number; total: number; percentage: number; step?: string };
  /** The latest thing the job said. */
  message?: string;
  result?: Record<string, unknown>;
  error?: string;
  /** Offset of the last event applied; -1 before any. */
  lastOffset: number;
  log: LogLine[];
  stream: 'idle' | 'open' | 'reconnecting' | 'ended';
}

export const isTerminal = (phase: JobPhase) =>
  phase === 'complete' || phase === 'failed' || phase === 'cancelled';

export function newJob(key: string, file: { name: string; size: number }, route: Job['route']): Job {
  return {
    key,
    name: file.name,
    size: file.size,
    route,
    phase: 'uploading',
    sent: 0,
    lastOffset: -1,
    log: [],
    stream: 'idle',
  };
}

const LOG_LIMIT = 200;

function withLog(job: Job, line: LogLine): Job {
  const log = job.log.length >= LOG_LIMIT ? job.log.slice(-LOG_LIMIT + 1) : job.log;
  return { ...job, log: [...log, line] };
}

function describeResult(result: Record<string, unknown>): string {
  const n = (name: string) => (typeof result[name] === 'number' ? (result[name] as number) : undefined);
  const count = (name: string, one: string, many: string) => {
    const value = n(name);
    return value === undefined ? undefined : `${value} ${value === 1 ? one : many}`;
  };
  const parts = [
    count('chunks_created', 'chunk', 'chunks'),
    count('graph_nodes', 'graph node', 'graph nodes'),
    count('graph_edges', 'edge', 'edges'),
    n('processing_time') !== undefined ? `${n('processing_time')!.toFixed(1)} s` : undefined,
  ].filter(Boolean);
  return parts.length > 0 ? `Indexed: ${parts.join(', ')}` : 'Complete';
}

/** A frame of the job's stream (the JSON of one `data:` line). */
export function applyFrame(job: Job, frame: Events.StreamFrame): Job {
  if (frame.type === 'connected') return job.phase === 'uploading' ? { ...job, phase: 'queued' } : job;
  // The stream is over for good: the events before it said how the job ended.
  if (frame.type === 'end') return job;
  if (!('offset' in frame)) {
    // `error` (no queue for the task, or it stopped reporting), `stream_error` (the store failed) or
    // `interrupted` (its worker died; it resumes): the page settles the job from its status, or the stream
    // resumes.
    return withLog(job, { offset: job.lastOffset, text: frame.message, tone: 'warn' });
  }
  if (frame.offset <= job.lastOffset) return job;
  let next: Job = { ...job, lastOffset: frame.offset };
  switch (frame.type) {
    case 'status': {
      const said = frame.message && frame.message !== frame.phase ? frame.message : undefined;
      const text = [frame.phase, said].filter(Boolean).join(': ') || frame.state;
      if (frame.state === 'pending') next = { ...next, phase: 'queued', message: 'Queued' };
      else if (frame.state === 'working' || frame.state === 'input-required')
        next = { ...next, phase: 'running', message: text };
      else if (frame.state === 'completed') next = { ...next, phase: 'complete', message: text };
      else if (frame.state === 'failed')
        next = { ...next, phase: 'failed', error: frame.message ?? 'Failed' };
      else if (frame.state === 'cancelled')
        next = { ...next, phase: 'cancelled', message: frame.message ?? 'Cancelled' };
      return withLog(next, { offset: frame.offset, text, tone: frame.state === 'failed' ? 'error' : 'info' });
    }
    case 'progress': {
      const progress = {
        current: frame.current,
        total: frame.total,
        percentage: frame.percentage,
        step: frame.step,
      };
      const text = `${frame.step ?? 'progress'} ${frame.current}/${frame.total}`;
      next = { ...next, phase: isTerminal(next.phase) ? next.phase : 'running', progress, message: text };
      return withLog(next, { offset: frame.offset, text, tone: 'info' });
    }
    case 'artifact':
      return withLog(next, { offset: frame.offset, text: `artifact ${frame.artifact_type}`, tone: 'info' });
    case 'error': {
      const text = `${frame.error_type}: ${frame.error_message}`;
      if (!frame.recoverable) next = { ...next, phase: 'failed', error: frame.error_message };
      return withLog(next, { offset: frame.offset, text, tone: frame.recoverable ? 'warn' : 'error' });
    }
    case 'complete': {
      const status = frame.result.status;
      const summary = describeResult(frame.result);
      if (status === 'failed') {
        const error =
          typeof frame.result.error === 'string' ? frame.result.error : (frame.summary ?? 'Failed');
        next = { ...next, phase: 'failed', result: frame.result, error };
      } else if (status === 'cancelled') {
        next = { ...next, phase: 'cancelled', result: frame.result, message: frame.summary ?? 'Cancelled' };
      } else {
        next = { ...next, phase: 'complete', result: frame.result, message: summary };
      }
      return withLog(next, { offset: frame.offset, text: frame.summary ?? summary, tone: 'info' });
    }
  }
}

/** Settles a job from its status route (when its stream has no queue any more, or cannot be opened). */
export function applyStatus(job: Job, status: Ingestion.JobStatus): Job {
  const phase: JobPhase =
    status.state === 'queued' ? 'queued' : status.state === 'running' ? 'running' : status.state;
  const result = status.result as Record<string, unknown> | undefined;
  return {
    ...job,
    phase,
    result: result ?? job.result,
    error: status.error ?? (phase === 'failed' ? (job.error ?? 'Failed') : job.error),
    message:
      phase === 'complete' && result
        ? describeResult(result)
        : phase === 'cancelled'
          ? status.reason
          : job.message,
  };
}

/** The job's progress as a fraction 0..1, or undefined while it cannot be told (queued, running untold). */
export function fractionOf(job: Job): number | undefined {
  if (job.phase === 'uploading') return job.size > 0 ? job.sent / job.size : undefined;
  if (job.phase === 'complete') return 1;
  if (job.phase === 'running' && job.progress && job.progress.total > 0)
    return Math.min(1, job.progress.current / job.progress.total);
  return undefined;
}
