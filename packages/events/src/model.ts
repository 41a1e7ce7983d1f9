/** Task events: what producers report and what streams deliver. */
import { z } from 'zod';

export const TaskState = z.enum(['pending', 'working', 'input-required', 'completed', 'failed', 'cancelled']);
export type TaskState = z.infer<typeof TaskState>;

export const TaskKind = z.enum(['workflow', 'ingestion']);
export type TaskKind = z.infer<typeof TaskKind>;

/** The body of a cancel request: an optional reason (the first reason given stays). */
export const CancelRequest = z
  .object({ reason: z.string().min(1).max(1000).default('Cancelled on request') })
  .default({ reason: 'Cancelled on request' });

export const StatusEvent = z.object({
  type: z.literal('status'),
  state: TaskState,
  phase: z.string().optional(),
  message: z.string().optional(),
});
export const ProgressEvent = z.object({
  type: z.literal('progress'),
  current: z.number(),
  total: z.number(),
  percentage: z.number(),
  step: z.string().optional(),
  details: z.record(z.string(), z.unknown()).default({}),
});
export const ArtifactEvent = z.object({
  type: z.literal('artifact'),
  artifact_type: z.string(),
  data: z.unknown(),
  is_partial: z.boolean().default(false),
});
export const ErrorEvent = z.object({
  type: z.literal('error'),
  error_type: z.string(),
  error_message: z.string(),
  recoverable: z.boolean(),
});
export const CompleteEvent = z.object({
  type: z.literal('complete'),
  result: z.record(z.string(), z.unknown()),
  summary: z.string().optional(),
  execution_time_seconds: z.number().optional(),
});

/** What a producer reports; the store adds `task_id`, `tenant_id`, `event_id`, `timestamp` and `offset`. */
export const EventBody = z.discriminatedUnion('type', [
  StatusEvent,
  ProgressEvent,
  ArtifactEvent,
  ErrorEvent,
  CompleteEvent,
]);
export type EventBody = z.infer<typeof EventBody>;

export type TaskEvent = EventBody & {
  task_id: string;
  tenant_id: string;
  event_id: string;
  timestamp: string;
  offset: number;
};

/** Events after which a task has ended. */
export function isTerminal(event: EventBody): boolean {
  return (
    event.type === 'complete' ||
    (event.type === 'error' && !event.recoverable) ||
    (event.type === 'status' &&
      (event.state === 'completed' || event.state === 'failed' || event.state === 'cancelled'))
  );
}
