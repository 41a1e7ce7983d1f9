export { DynamoTaskEvents } from './dynamo-task-events';
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
export type { StreamRequest } from './streams';
export { HEARTBEAT_MS, POLL_MS, streamTask } from './streams';
export type { AppendResult, Cancelled, OpenTask, TaskCondition, TaskEvents, TaskRecord } from './task-events';
export {
  alreadyFinished,
  appended,
  byAge,
  cancelAnswer,
  cancelEach,
  checkCancellable,
  ENDED_RETENTION_MS,
  expired,
  isActive,
  newTask,
  noQueue,
  oldestRetained,
  PRODUCER_LEASE_MS,
  QUEUED_INGESTION_LEASE_MS,
  queueInfo,
  SUBSCRIBER_LEASE_MS,
  taskCondition,
  WORKFLOW_WINDOW,
} from './task-events';
export type { PurgeTiming } from './tenant-data';
export {
  DEFAULT_PURGE_TIMING,
  deletedReason,
  producerWorking,
  settleTenantWork,
  taskEventsTenantData,
} from './tenant-data';
export { TaskEventsUnavailableError } from './unavailable';
export { taskEvents } from './wiring';
