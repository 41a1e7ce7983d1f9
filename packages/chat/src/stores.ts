/** The production chat stores of this process, built once (apart from the rest of the wiring, for lean bundles). */
import type { ConversationStore } from './conversations';
import { DynamoConversationStore } from './dynamo-conversations';
import { DynamoHarnessKeyStore, type HarnessKeyStore } from './harness-keys';

let conversationStore: ConversationStore | undefined;
let keyStore: HarnessKeyStore | undefined;

export function conversations(): ConversationStore {
  conversationStore ??= new DynamoConversationStore();
  return conversationStore;
}

export function harnessKeys(): HarnessKeyStore {
  keyStore ??= new DynamoHarnessKeyStore();
  return keyStore;
}
