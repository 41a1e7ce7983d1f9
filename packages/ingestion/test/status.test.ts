import type { TaskEvent } from '@tessera/events';
import { describe, expect, it } from 'vitest';
import { statusEntry } from '../src';

const base = {
  task_id: 'ingest_1',
  tenant_id: 'a:a',
  event_id: 'e1',
  timestamp: '2026-01-01T00:00:00.000Z',
  offset: 3,
};
const event = (body: object) => ({ ...base, ...body }) as TaskEvent;

describe('statusEntry', () => {
  it('maps a pending status to queued and the running phase to running', () => {
    expect(statusEntry(event({ type: 'status', state: 'pending', phase: 'queued' }))).toEqual({
      state: 'queued',
      ingest_id: 'ingest_1',
      event_id: 'e1',
      timestamp: base.timestamp,
      offset: 3,
    });
    expect(statusEntry(event({ type: 'status', state: 'working', phase: 'running' })).state).toBe('running');
  });

  it('maps complete to complete with the result, and an unrecoverable error to failed', () => {
    expect(statusEntry(event({ type: 'complete', result: { chunks_created: 2 } }))).toMatchObject({
      state: 'complete',
      result: { chunks_created: 2 },
    });
    expect(
      statusEntry(
        event({ type: 'error', error_type: 'CorruptPdf', error_message: 'bad', recoverable: false }),
      ),
    ).toMatchObject({ state: 'failed', error: 'bad', error_type: 'CorruptPdf' });
  });

  it('maps a cancelled status to cancelled with its reason', () => {
    expect(statusEntry(event({ type: 'status', state: 'cancelled', message: 'user asked' }))).toMatchObject({
      state: 'cancelled',
      reason: 'user asked',
    });
  });

  it('carries other events of a running job as pipeline events', () => {
    const progress = event({ type: 'progress', current: 1, total: 2, percentage: 50, details: {} });
    expect(statusEntry(progress)).toMatchObject({ state: 'running', event: progress });
  });
});
