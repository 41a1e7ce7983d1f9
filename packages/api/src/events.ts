/** Task event routes (document 3): SSE streams of a task's events, cancellation and queue info. */
import { z } from 'zod';
import { route } from './contract';
import { plain, taskEventsOutage, tenantGuard, ValidationErrorBody } from './errors';
import { TaskId } from './ids';

export const TaskState = z.enum(['pending', 'working', 'input-required', 'completed', 'failed', 'cancelled']);
export type TaskState = z.infer<typeof TaskState>;

export const TaskKind = z.enum(['workflow', 'ingestion']);
export type TaskKind = z.infer<typeof TaskKind>;

/** The body of a cancel request: an optional reason (the first reason given stays). */
export const CancelRequest = z
  .strictObject({ reason: z.string().min(1).max(1000).default('Cancelled on request') })
  .default({ reason: 'Cancelled on request' });
export type CancelRequest = z.output<typeof CancelRequest>;

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

/** An event as stored and delivered. */
export const TaskEvent = z
  .intersection(
    EventBody,
    z.object({
      task_id: z.string(),
      tenant_id: z.string(),
      event_id: z.string(),
      timestamp: z.string().meta({ description: 'ISO 8601.' }),
      offset: z.number().int(),
    }),
  )
  .meta({ id: 'TaskEvent' });
export type TaskEvent = z.infer<typeof TaskEvent>;

/** The frames of a task's stream: each is the JSON of one `data:` line (task events also carry `id: <offset>`). */
export const StreamFrame = z
  .union([
    z.object({
      type: z.literal('connected'),
      task_id: z.string(),
      offset: z.number().int(),
      timestamp: z.string(),
    }),
    TaskEvent,
    z
      .object({ type: z.literal('error'), message: z.string() })
      .meta({ description: 'The task has no queue of this kind, or stopped reporting before it finished.' }),
    z.object({ type: z.literal('stream_error'), message: z.string(), failure: z.string() }).meta({
      description: 'The store stopped answering mid-stream; reconnect with Last-Event-ID to resume.',
    }),
    z.object({ type: z.literal('interrupted'), task_id: z.string(), message: z.string() }).meta({
      description:
        "The task's worker stopped reporting (it died) and the task resumes when its queue delivers it again: " +
        'the stream stays open, and the events of the next attempt follow.',
    }),
    z
      .object({
        type: z.literal('end'),
        task_id: z.string(),
        outcome: z.enum(['ended', 'stopped', 'gone']),
        next_offset: z.number().int(),
      })
      .meta({
        description:
          'The last frame of a stream that is over for good (the task ended, stopped for good, or is no ' +
          'longer retained), sent with `retry: 3600000`: close the EventSource instead of reconnecting. A ' +
          'reconnect with Last-Event-ID at the last event is answered 204, which stops an EventSource.',
      }),
  ])
  .meta({ id: 'StreamFrame' });
export type StreamFrame = z.infer<typeof StreamFrame>;

export const Cancelled = z.object({ task_id: z.string(), cancelled: z.literal(true), message: z.string() });
export type Cancelled = z.infer<typeof Cancelled>;

export const QueueInfo = z
  .object({
    task_id: z.string(),
    kind: TaskKind,
    tenant_id: z.string(),
    event_count: z.number().int(),
    subscriber_count: z.number().int(),
    is_closed: z.boolean(),
    is_cancelled: z.boolean(),
    created_at: z.string().meta({ description: 'ISO 8601.' }),
  })
  .meta({ id: 'QueueInfo' });
export type QueueInfo = z.infer<typeof QueueInfo>;

export const QueueList = z.object({
  tenant_id: z.string(),
  queues: z.array(QueueInfo),
  count: z.number().int(),
});
export type QueueList = z.infer<typeof QueueList>;

export const QueueOffset = z.object({ task_id: z.string(), offset: z.number().int() });
export type QueueOffset = z.infer<typeof QueueOffset>;

export const StreamQuery = z.object({
  from_offset: z
    .string()
    .regex(/^\d+$/, 'from_offset must be a non-negative integer')
    .transform(Number)
    .optional()
    .meta({
      description:
        'Where the stream starts when the request carries no `Last-Event-ID` (default 0). A request with ' +
        '`Last-Event-ID` (an EventSource reconnecting) resumes after that event whatever `from_offset` says.',
    }),
});

const streamDescription =
  'Opens with `connected`, delivers every event from the offset on, sends `: heartbeat` after 15 s ' +
  'without an event, and ends once the task ended and every event was sent, with an `end` frame.';
const streamAnswers = {
  responses: {
    200: { description: 'The stream (`text/event-stream`).', schema: StreamFrame },
    204: {
      description:
        'A reconnect (`Last-Event-ID`) after the last event of a task that is over, or of no task: nothing ' +
        'is left to stream, and an EventSource stops reconnecting.',
      schema: z.literal(''),
    },
  },
  errors: {
    422: {
      description: 'A malformed from_offset, or one (or a Last-Event-ID) past the end of the task.',
      schema: ValidationErrorBody,
    },
    503: taskEventsOutage,
  },
};

export const workflowEvents = route({
  id: 'workflowEvents',
  group: 'events',
  method: 'GET',
  route: '/events/workflows/{workflow_id}',
  summary: "Server-sent events of a workflow's task",
  description: streamDescription,
  path: z.object({ workflow_id: TaskId }),
  query: StreamQuery,
  stream: true,
  ...streamAnswers,
});

export const ingestionEvents = route({
  id: 'ingestionEvents',
  group: 'events',
  method: 'GET',
  route: '/events/ingestion/{job_id}',
  summary: "Server-sent events of an ingestion job's task",
  description: streamDescription,
  path: z.object({ job_id: TaskId }),
  query: StreamQuery,
  stream: true,
  ...streamAnswers,
});

export const cancelErrors = {
  404: plain('`No active workflow found with ID <id>` / `No active ingestion job found with ID <id>`.'),
  409: plain(
    '`<Workflow|Ingestion job> <id> already finished` or `… stopped reporting before it finished` (a workflow; an ' +
      'ingestion job whose worker died is resumed, and a cancel of it is recorded).',
  ),
  503: taskEventsOutage,
};

export const cancelWorkflow = route({
  id: 'cancelWorkflow',
  group: 'events',
  method: 'POST',
  route: '/events/workflows/{workflow_id}/cancel',
  summary: 'Request the cancellation of a workflow',
  path: z.object({ workflow_id: TaskId }),
  body: CancelRequest,
  responses: {
    200: { description: 'The cancellation is recorded; the first reason stays.', schema: Cancelled },
  },
  errors: cancelErrors,
});

export const queues = route({
  id: 'queues',
  group: 'events',
  method: 'GET',
  route: '/events/queues',
  summary: "A tenant's running and queued tasks",
  query: z.object({ tenant_id: z.string() }),
  responses: { 200: { description: 'The queue info of each task, oldest first.', schema: QueueList } },
  errors: { ...tenantGuard, 503: taskEventsOutage },
});

const taskPath = z.object({ task_id: TaskId });
const unknownQueue = plain('`No queue found for task <id>`.');

export const queueInfo = route({
  id: 'queueInfo',
  group: 'events',
  method: 'GET',
  route: '/events/queues/{task_id}',
  summary: "A task's queue info, while its events are retained",
  path: taskPath,
  responses: { 200: { description: 'The queue info.', schema: QueueInfo } },
  errors: { 404: unknownQueue, 503: taskEventsOutage },
});

export const queueOffset = route({
  id: 'queueOffset',
  group: 'events',
  method: 'GET',
  route: '/events/queues/{task_id}/offset',
  summary: 'The offset the next event of a task takes',
  path: taskPath,
  responses: { 200: { description: 'The next offset.', schema: QueueOffset } },
  errors: { 404: unknownQueue, 503: taskEventsOutage },
});
