/** The CDK constructs of Tessera's AWS resources, composed by sst.config.ts. */
export { Api, type ApiProps, DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_SECONDS } from './api';
export { bundleHandlerModules, type HandlerBundle, LAMBDA_CONFIG_DIR, searchLayer } from './bundle';
export { type QueueKey, Queues } from './queues';
export { type BucketKey, createBucket, createTable, Storage, type TableKey } from './storage';
