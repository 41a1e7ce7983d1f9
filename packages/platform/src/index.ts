export { BATCH_WRITE_ITEMS, batchDelete, batchGet, batchPut, queryAll, resending, slices } from './batch';
export { documentClient, dynamoClient, s3Client, sqsClient } from './clients';
export { conditional } from './conditional';
export { hasCustomEndpoint, platformEnv, resourceName, secretReferences, streamingUrl } from './env';
export type { ServiceHealth } from './health';
export { awsServicesHealth, probe } from './health';
export { getItem, queryPage, updateItem } from './items';
export { provisionResources } from './provision';
export type { BucketDef, NotificationDef, QueueDef, TableDef } from './resources';
export {
  API_URL_VARIABLE,
  bucketNotifications,
  buckets,
  LONG_RUN_URL_VARIABLE,
  queues,
  streamingUrlVariable,
  tables,
} from './resources';
export { SqsQueue } from './sqs-queue';
export { resourcePrefix, STAGE_MAX_LENGTH, STAGE_PATTERN } from './stage';
