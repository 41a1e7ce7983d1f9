/** The CDK constructs of Tessera's AWS resources, composed by sst.config.ts. */
export { Api, type ApiProps } from './api';
export { bundleHandlerModules, type HandlerBundle, LAMBDA_CONFIG_DIR, searchLayer } from './bundle';
export {
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
  type FunctionSpec,
  Functions,
  type FunctionsProps,
} from './functions';
export { type QueueKey, Queues } from './queues';
export { Schedules, type SchedulesProps } from './schedules';
export { type BucketKey, createBucket, createTable, Storage, type TableKey } from './storage';
export { Workers, type WorkersProps } from './workers';
