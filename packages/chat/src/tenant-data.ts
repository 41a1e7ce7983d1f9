/**
 * What a tenant owns in the chat stores, removed at its delete: its conversations and its harness keys.
 * Imported by the tenant-removal functions through `@tessera/chat/tenant-data`, without the agents.
 */
import type { TenantDataOwner } from '@tessera/core';
import type { ConversationStore } from './conversations';
import type { HarnessKeyStore } from './harness-keys';
import { conversations, harnessKeys } from './stores';

export function conversationsData(store: ConversationStore = conversations()): TenantDataOwner {
  return {
    name: 'conversations',
    purge: (tenant) => store.removeTenant(tenant.full),
  };
}

export function harnessKeysData(store: HarnessKeyStore = harnessKeys()): TenantDataOwner {
  return {
    name: 'harness keys',
    purge: (tenant) => store.removeTenant(tenant.full),
  };
}
