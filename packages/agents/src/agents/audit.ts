/**
 * The audit explanation of a workflow run from its task events: what it was of, its plan (the `plan`
 * artifact an orchestration reports), its steps (every event in order), the sources it reported and the
 * time each phase took.
 */
import { NotFoundError } from '@tessera/core';
import type { TaskEvent, TaskEvents } from '@tessera/events';

/** How many events an explanation reads at most (a workflow keeps its newest 1,000). */
const MAX_EVENTS = 1000;

function stepOf(event: TaskEvent) {
  const base = { offset: event.offset, timestamp: event.timestamp, type: event.type };
  switch (event.type) {
    case 'status':
      return { ...base, state: event.state, phase: event.phase ?? null, message: event.message ?? null };
    case 'progress':
      return { ...base, state: null, phase: null, message: event.step ?? `${event.current}/${event.total}` };
    case 'artifact':
      return { ...base, state: null, phase: null, message: event.artifact_type };
    case 'error':
      return {
        ...base,
        state: 'failed',
        phase: null,
        message: `${event.error_type}: ${event.error_message}`,
      };
    case 'complete':
      return { ...base, state: 'completed', phase: null, message: event.summary ?? null };
  }
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

export async function explainRun(events: TaskEvents, tenantId: string, workflowId: string) {
  const record = await events.get(workflowId);
  // Another tenant's run is as unknown as one that never was.
  if (record?.kind !== 'workflow' || record.tenant_id !== tenantId) {
    throw new NotFoundError(`Workflow '${workflowId}' not found`);
  }
  const read = await events.read(workflowId, events.oldestRetained(record), MAX_EVENTS);
  const steps = read.map(stepOf);
  let status = 'working';
  let agent: string | null = null;
  let plan: unknown = null;
  const sources = new Set<string>();
  for (const event of read) {
    if (event.type === 'status') status = event.state;
    else if (event.type === 'complete') {
      status = typeof event.result.status === 'string' ? event.result.status : 'completed';
      agent ??= /^(\w+) finished with/.exec(event.summary ?? '')?.[1] ?? null;
    } else if (event.type === 'error') {
      status = 'failed';
      agent ??= /^(\w+) failed with/.exec(event.error_message)?.[1] ?? null;
    } else if (event.type === 'artifact') {
      if (event.artifact_type === 'plan') plan = event.data;
      if (event.artifact_type === 'sources') for (const source of strings(event.data)) sources.add(source);
    }
  }
  const time = (event: TaskEvent | undefined) => (event ? Date.parse(event.timestamp) : Number.NaN);
  const first = read[0];
  const last = read.at(-1);
  // Each phase lasts until the next phase begins (the last one until the last event).
  const marks = read.filter((event) => event.type === 'status' && event.phase);
  const phases = marks.map((event, i) => ({
    phase: (event as { phase: string }).phase,
    ms: Math.max(0, (time(marks[i + 1]) || time(last)) - time(event)),
  }));
  return {
    workflow_id: workflowId,
    workflow_agent: agent,
    status,
    plan,
    steps,
    sources: [...sources],
    timings: {
      started_at: first?.timestamp ?? null,
      ended_at: record.ended ? (last?.timestamp ?? null) : null,
      total_ms: first && last ? Math.max(0, time(last) - time(first)) : 0,
      phases,
    },
    event_count: read.length,
  };
}
