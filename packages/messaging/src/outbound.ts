/**
 * The outbound queue on its own (`@tessera/messaging/outbound`): what jobs and provisioning queue messages
 * with, without the invites and mappings (so their functions reach only the outbound table).
 */
import { randomUUID } from 'node:crypto';
import { DynamoOutboundStore } from './dynamo-outbound';
import type { OutboundStore } from './store';

export { DynamoOutboundStore } from './dynamo-outbound';
export type { OutboundMessage, OutboundStore } from './store';

let outbound: OutboundStore | undefined;

/** The outbound message queue of this process. */
export function outboundStore(): OutboundStore {
  outbound ??= new DynamoOutboundStore();
  return outbound;
}

/** A time-ordered message id: sorts by its queueing time, unique by its random tail. */
export const newMessageId = (now: number) =>
  `${String(now).padStart(15, '0')}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/** Queues a message for the tenant's linked chats (`chat_id` null: each chat of the platform draining it). */
export async function queueForTenant(
  deps: { outbound: OutboundStore; now: () => number },
  tenantId: string,
  text: string,
  source: string,
): Promise<void> {
  const now = deps.now();
  await deps.outbound.enqueue({
    tenant_id: tenantId,
    message_id: newMessageId(now),
    chat_id: null,
    platform: null,
    text,
    source,
    created_at: now,
  });
}
