export { createBot, PHOTO_CAP_BYTES, PLATFORM, RESOLVE_TTL_MS, sendText } from './bot';
export { type GatewaySettings, gatewaySettings, webhookIntakeSettings } from './env';
export { escapeMarkdown, MESSAGE_LIMIT, resultText, splitEscaped } from './format';
export { PARALLEL_UPDATES, type RunningGateway, startGateway } from './gateway';
export { OutboundLoop, type Pending, SEND_ATTEMPTS } from './outbound';
export { REPLIES } from './replies';
export { honourRetryAfter } from './retry';
export {
  type Crud,
  DEFAULT_TIMEOUTS,
  type Dispatched,
  RuntimeClient,
  type RuntimeTimeouts,
} from './runtime-client';
