/**
 * The job's status entries (document 3, "Ingestion job") read back from its task events: `pending` →
 * `queued`, `working` → `running`, complete → `complete` with the result, error → `failed`, cancelled
 * status → `cancelled`; other events are pipeline events of a running job.
 */
import type { Ingestion } from '@tessera/api';
import type { TaskEvent } from '@tessera/events';

export type StatusEntry = Ingestion.StatusEntry;

export function statusEntry(event: TaskEvent): StatusEntry {
  const base = {
    ingest_id: event.task_id,
    event_id: event.event_id,
    timestamp: event.timestamp,
    offset: event.offset,
  };
  switch (event.type) {
    case 'status':
      if (event.state === 'pending') return { ...base, state: 'queued' };
      if (event.state === 'cancelled') return { ...base, state: 'cancelled', reason: event.message };
      if (event.state === 'working' && event.phase === 'running') return { ...base, state: 'running' };
      return { ...base, state: 'running', event };
    case 'complete':
      return { ...base, state: 'complete', result: event.result };
    case 'error':
      return event.recoverable
        ? { ...base, state: 'running', event }
        : { ...base, state: 'failed', error: event.error_message, error_type: event.error_type };
    default:
      return { ...base, state: 'running', event };
  }
}
