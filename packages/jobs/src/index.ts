export type { JobsDeps } from './deps';
export { DynamoJobStore } from './dynamo-store';
export { jobsEnv } from './env';
export { EventBridgeJobSchedules, type EventBridgeTarget, StoreSchedules } from './eventbridge-schedules';
export { fireDueJobs, type RunOutcome, type RunRequest, runJob, type TickOutcome } from './run';
export { eventBridgeExpression, nextSlot, parseSchedule } from './schedule';
export {
  createJob,
  deleteJob,
  getJob,
  listJobs,
  listOutbound,
  newJobId,
  publicJob,
  purgeTenantJobs,
} from './service';
export type { JobSchedules, JobStore, OutboundMessage, OutboundStore, StoredJob, StoredRun } from './store';
export { type JobsData, jobSchedules, jobsData } from './tenant-data';
export { jobs } from './wiring';
