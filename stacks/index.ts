/** The CDK constructs of Tessera's AWS resources, composed by sst.config.ts and app.ts. */
export { Api, type ApiProps } from './api';
export { bundleHandlerModules, type HandlerBundle, LAMBDA_CONFIG_DIR, searchLayer } from './bundle';
export { deploySettings } from './env';
export {
  API_TIMEOUT_SECONDS,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
  type FunctionSpec,
  Functions,
  type FunctionsProps,
} from './functions';
export {
  bundleReads,
  type DataAccess,
  grantMismatches,
  MODULE_GRANTS,
  type QueueAccess,
  type ReferencedStores,
  referencedStores,
  type StoreGrants,
} from './grants';
export { type QueueKey, Queues } from './queues';
export { Schedules, type SchedulesProps } from './schedules';
export { checkSettings, DEPLOY_SETTINGS, type FunctionSettings, type SecretSource } from './settings';
export { type BucketKey, createBucket, createTable, Storage, type TableKey } from './storage';
export { composeTessera, type Tessera, type TesseraProps } from './tessera';
export { Workers, type WorkersProps } from './workers';
