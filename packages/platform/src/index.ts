export { BATCH_WRITE_ITEMS, batchGet, batchPut, resending, slices } from './batch';
export { documentClient, dynamoClient, s3Client, sqsClient } from './clients';
export { conditional } from './conditional';
export { hasCustomEndpoint, platformEnv, resourceName } from './env';
export type { ServiceHealth } from './health';
export { awsServicesHealth, probe } from './health';
export { provisionResources } from './provision';
export type { BucketDef, NotificationDef, QueueDef, TableDef } from './resources';
export { bucketNotifications, buckets, queues, tables } from './resources';
