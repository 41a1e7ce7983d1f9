/** What a tenant delete removes of messaging: its invites, its users' mappings and linked chats. */
import type { TenantDataOwner } from '@tessera/core';
import type { MessagingStore } from './store';
import { messagingStore } from './wiring';

export function messagingData(store: MessagingStore = messagingStore()): TenantDataOwner {
  return {
    name: 'messaging invites and linked chats',
    purge: async (tenant) => {
      await store.purgeTenant(tenant.full);
    },
  };
}
