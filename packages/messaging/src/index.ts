export type { MessagingDeps } from './deps';
export { DynamoMessagingStore } from './dynamo-store';
export { DynamoOutboundStore, newMessageId, outboundStore, queueForTenant } from './outbound';
export {
  createInvite,
  DRAIN_BATCH,
  drain,
  linkedChatCount,
  type RegisterRequest,
  type Registration,
  type Resolution,
  register,
  resolveUser,
  sendToTenant,
} from './service';
export type { ChatLink, MessagingStore, OutboundMessage, OutboundStore, StoredInvite } from './store';
export { messagingData } from './tenant-data';
export { messaging, messagingStore } from './wiring';
