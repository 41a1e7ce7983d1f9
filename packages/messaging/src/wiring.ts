/** The production wiring of messaging, built once per process. */
import { tenancy } from '@tessera/tenancy';
import type { MessagingDeps } from './deps';
import { DynamoMessagingStore } from './dynamo-store';
import { outboundStore } from './outbound';
import type { MessagingStore } from './store';

let store: MessagingStore | undefined;
let deps: MessagingDeps | undefined;

/** The messaging store of this process (invites, mappings, linked chats). */
export function messagingStore(): MessagingStore {
  store ??= new DynamoMessagingStore();
  return store;
}

export function messaging(): MessagingDeps {
  deps ??= { tenancy: tenancy(), store: messagingStore(), outbound: outboundStore(), now: Date.now };
  return deps;
}
