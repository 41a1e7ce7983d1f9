export type { TaskEvent } from './model';
export {
  ArtifactEvent,
  CancelRequest,
  CompleteEvent,
  ErrorEvent,
  EventBody,
  isTerminal,
  ProgressEvent,
  StatusEvent,
  TaskKind,
  TaskState,
} from './model';
export type { ReporterOptions, WorkflowRun } from './producer';
export { newWorkflowId, runWorkflow, TaskCancelledError, TaskReporter } from './producer';
export type { AppendResult, TaskCondition, TaskRecord } from './store';
export {
  appended,
  ENDED_RETENTION_MS,
  PRODUCER_LEASE_MS,
  QUEUED_INGESTION_LEASE_MS,
  SUBSCRIBER_LEASE_MS,
  TaskEventStore,
  WORKFLOW_WINDOW,
} from './store';
export type { StreamRequest } from './streams';
export { HEARTBEAT_MS, POLL_MS, streamTask } from './streams';
export { TaskEventsUnavailableError } from './unavailable';
