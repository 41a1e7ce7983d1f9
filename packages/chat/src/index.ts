/**
 * Chat over the agents (document 3; clarifications "Chat, conversations, AG-UI, harness keys"):
 * OpenAI-compatible chat completions, the conversations stored per tenant and context id, harness keys and
 * AG-UI runs guarded by them.
 */
export { AgUiFrames, type AgUiTurn, agUiTurn, keyTenant, parseRunInput, runAgUi } from './ag-ui';
export { hitsOf, pieces, stepsOf } from './answer';
export {
  agentOf,
  answerTurn,
  type ChatAnswer,
  type ChatDeps,
  type ChatTurn,
  ConversationsUnavailableError,
  chatCompletion,
  chatTurn,
  completion,
  contentText,
  conversationsCall,
  historyOf,
  processInConversation,
  runnableAgent,
  storeTurn,
} from './chat';
export {
  type ConversationStore,
  iso,
  type NewMessage,
  type StoredMessage,
  type ThreadSummary,
  threadAnswer,
  titleOf,
} from './conversations';
export { TextDeltas } from './deltas';
export { DynamoConversationStore } from './dynamo-conversations';
export {
  DynamoHarnessKeyStore,
  type HarnessKeyStore,
  type MintedKey,
  mintKey,
  revokeKey,
  type StoredKey,
  sha256,
  tenantOfKey,
  UnauthorizedError,
} from './harness-keys';
export { conversations, harnessKeys } from './stores';
export {
  type ChunkSink,
  completionErrorBody,
  errorFrame,
  openAiError,
  streamCompletion,
} from './streaming';
export { conversationsData, harnessKeysData } from './tenant-data';
export { chat } from './wiring';
