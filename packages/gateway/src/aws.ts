/**
 * The gateway in AWS (`@tessera/gateway/aws`): the webhook's intake with its update log and FIFO queue, apart
 * from the polling process's entry so that one needs no AWS clients.
 */
export { DynamoUpdateLog } from './dynamo-update-log';
export { webhookIntakeSettings } from './env';
export { SqsUpdateQueue } from './sqs-update-queue';
export {
  acceptWebhook,
  chatOf,
  type IntakeAnswer,
  type IntakeDeps,
  secretMatches,
  type UpdateLog,
  type UpdateQueue,
  type UpdateState,
} from './webhook-intake';
