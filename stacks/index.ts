/** The CDK constructs of Tessera's AWS resources, composed by sst.config.ts and app.ts. */
export { Api, type ApiProps, moduleRouters } from './api';
export {
  bundleHandlerModules,
  type HandlerBundle,
  LAMBDA_CONFIG_DIR,
  type ModuleRoutes,
  ROUTER_EXPORT,
  searchLayer,
} from './bundle';
export { deployMediaSettings, deploySettings } from './env';
export {
  API_TIMEOUT_SECONDS,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
  type FunctionSpec,
  Functions,
  type FunctionsProps,
  secretReference,
} from './functions';
export {
  type Binding,
  bundleReads,
  type DataAccess,
  grantMismatches,
  MODULE_GRANTS,
  type QueueAccess,
  type ReferencedStores,
  referencedStores,
  type StoreGrants,
} from './grants';
export {
  Jobs,
  type JobsProps,
  RUN_FUNCTION_VARIABLE,
  SCHEDULE_GROUP_VARIABLE,
  SCHEDULER_ROLE_VARIABLE,
} from './jobs';
export {
  containerImage,
  EMBEDDING_MODELS,
  InferenceSidecars,
  type InferenceSidecarsProps,
  MEDIA_WORKER_CONTAINER,
  MediaWorker,
  type MediaWorkerProps,
  type ModelRef,
  REPOSITORY_CONTEXT,
  SIDECARS,
  type SidecarName,
} from './media';
export { type QueueKey, Queues } from './queues';
export { Schedules, type SchedulesProps } from './schedules';
export {
  checkMediaSettings,
  checkSettings,
  DEPLOY_SETTINGS,
  type FunctionSettings,
  type MediaSettings,
  type SecretSource,
} from './settings';
export { type BucketKey, createBucket, createTable, Storage, type TableKey } from './storage';
export { composeTessera, MINIMIZE_POLICIES, type Tessera, type TesseraProps } from './tessera';
export { Workers, type WorkersProps } from './workers';
export {
  PROVISION_ROUTE_HANDLER,
  STATE_MACHINE_VARIABLE,
  Workflows,
  type WorkflowsProps,
} from './workflows';
