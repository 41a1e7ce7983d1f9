import type { Events } from '@tessera/api';
import { describe, expect, it } from 'vitest';
import { applyFrame, applyStatus, fractionOf, isTerminal, newJob } from '../src/upload/jobs';

const base = { task_id: 'ingest_1', tenant_id: 'acme:prod', timestamp: '2026-01-01T00:00:00Z' };
const event = (offset: number, body: Record<string, unknown>) =>
  ({ ...base, event_id: `e${offset}`, offset, ...body }) as Events.StreamFrame;

const frames: Events.StreamFrame[] = [
  { type: 'connected', task_id: 'ingest_1', offset: 0, timestamp: base.timestamp },
  event(0, { type: 'status', state: 'pending', phase: 'queued', message: 'queued' }),
  event(1, { type: 'status', state: 'working', phase: 'running' }),
  event(2, { type: 'progress', current: 1, total: 2, percentage: 50, step: 'a.md', details: {} }),
  event(3, {
    type: 'complete',
    result: { status: 'complete', chunks_created: 1, graph_nodes: 3, graph_edges: 0, processing_time: 0.4 },
    summary: '1 documents fed',
  }),
];

const run = (input: Events.StreamFrame[]) =>
  input.reduce(applyFrame, { ...newJob('k', { name: 'a.md', size: 10 }, 'form'), jobId: 'ingest_1' });

describe('applyFrame', () => {
  it('moves a job from queued through running to complete, logging each event', () => {
    const job = run(frames);
    expect(job.phase).toBe('complete');
    expect(job.message).toBe('Indexed: 1 chunk, 3 graph nodes, 0 edges, 0.4 s');
    expect(job.log.map((line) => line.text)).toEqual(['queued', 'running', 'a.md 1/2', '1 documents fed']);
    expect(job.lastOffset).toBe(3);
    expect(isTerminal(job.phase)).toBe(true);
  });

  it('shows each event once when a resumed stream replays events it already applied', () => {
    // The stream broke after offset 1 and resumed from offset 0 (a reader behind the retained window).
    const replayed = [...frames.slice(0, 3), frames[0]!, ...frames.slice(1)];
    expect(run(replayed)).toEqual(run(frames));
  });

  it('ignores the end frame of a stream and logs an interruption, the job still running', () => {
    const ended = run([
      ...frames,
      { type: 'end', task_id: 'ingest_1', outcome: 'ended', next_offset: 4 } as Events.StreamFrame,
    ]);
    expect(ended).toEqual(run(frames));
    const interrupted = run([
      ...frames.slice(0, 3),
      { type: 'interrupted', task_id: 'ingest_1', message: 'The worker is gone' } as Events.StreamFrame,
    ]);
    expect(interrupted.phase).toBe('running');
    expect(interrupted.log.at(-1)).toMatchObject({ tone: 'warn', text: 'The worker is gone' });
  });

  it('reports the progress of a running job as a fraction', () => {
    const job = run(frames.slice(0, 4));
    expect(job.phase).toBe('running');
    expect(fractionOf(job)).toBe(0.5);
    expect(fractionOf({ ...job, phase: 'queued' })).toBeUndefined();
    expect(fractionOf({ ...job, phase: 'uploading', sent: 5 })).toBe(0.5);
  });

  it('fails a job on an unrecoverable error and keeps going on a recoverable one', () => {
    const warned = run([
      ...frames.slice(0, 3),
      event(2, {
        type: 'error',
        error_type: 'ContentProcessingError',
        error_message: 'b.pdf: no text',
        recoverable: true,
      }),
    ]);
    expect(warned.phase).toBe('running');
    expect(warned.log.at(-1)).toMatchObject({ tone: 'warn', text: 'ContentProcessingError: b.pdf: no text' });
    const failed = applyFrame(
      warned,
      event(3, {
        type: 'error',
        error_type: 'IngestPipelineError',
        error_message: 'every file failed',
        recoverable: false,
      }),
    );
    expect(failed).toMatchObject({ phase: 'failed', error: 'every file failed' });
  });

  it('ends a cancelled job with its reason', () => {
    const job = run([
      ...frames.slice(0, 2),
      event(1, { type: 'status', state: 'cancelled', message: 'stop' }),
    ]);
    expect(job).toMatchObject({ phase: 'cancelled', message: 'stop' });
  });

  it('logs a stream-level error without moving the job', () => {
    const job = run([
      ...frames.slice(0, 2),
      { type: 'error', message: 'No active queue for task ingest_1' } as Events.StreamFrame,
    ]);
    expect(job.phase).toBe('queued');
    expect(job.log.at(-1)).toMatchObject({ tone: 'warn', text: 'No active queue for task ingest_1' });
  });
});

describe('applyStatus', () => {
  it('settles a job from its status route', () => {
    const job = applyStatus(run(frames.slice(0, 2)), {
      job_id: 'ingest_1',
      tenant_id: 'acme:prod',
      state: 'failed',
      files: [],
      deliveries: 1,
      error: 'CorruptPdf: broken',
      entries: [],
    });
    expect(job).toMatchObject({ phase: 'failed', error: 'CorruptPdf: broken' });
  });
});
