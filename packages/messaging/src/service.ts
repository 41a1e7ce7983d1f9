/**
 * The messaging admin domain: invites, registration exactly once (claim, map, consume: conditional writes,
 * no transactions), resolve, the outbound drain and queueing messages for a tenant's linked chats.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, log } from '@tessera/core';
import { requireTenant } from '@tessera/tenancy';
import type { MessagingDeps } from './deps';
import { newMessageId } from './outbound';
import type { ChatLink, OutboundMessage } from './store';

/** Messages one drain takes at most (a drain runs every few seconds; the rest wait for the next). */
export const DRAIN_BATCH = 100;

export async function createInvite(deps: MessagingDeps, tenantId: string, expiresInHours: number) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const now = deps.now();
  const expiresMs = now + expiresInHours * 3_600_000;
  const token = randomUUID().replaceAll('-', '');
  await deps.store.putInvite({
    token,
    tenant_id: tenant.full,
    created_at: now,
    expires_at: Math.floor(expiresMs / 1000),
    claimed_by: null,
    consumed_at: null,
  });
  return { token, tenant_id: tenant.full, expires_at: new Date(expiresMs).toISOString() };
}

export type Registration =
  | { status: 'registered'; tenant_id: string }
  | { status: 'invalid_token' }
  | { status: 'unavailable' };

export interface RegisterRequest {
  platform: string;
  external_user_id: string;
  token: string;
}

/** The chat that reaches a registered user: on Telegram their private chat, whose id is the user id. */
const chatOf = (_platform: string, externalUserId: string) => externalUserId;

/**
 * Registers the user with the token: claims it (exactly one user can), maps the user to its tenant, then
 * consumes it. A failure after the claim leaves the token claimed by this user, and their retry resumes
 * from there; a store that does not answer makes `unavailable`.
 */
export async function register(deps: MessagingDeps, request: RegisterRequest): Promise<Registration> {
  const user = `${request.platform}:${request.external_user_id}`;
  try {
    if (!/^[0-9a-f]{32}$/.test(request.token)) return { status: 'invalid_token' };
    const now = deps.now();
    const invite = await deps.store.claimInvite(request.token, user, now);
    if (!invite) return { status: 'invalid_token' };
    try {
      await requireTenant(deps.tenancy, invite.tenant_id);
    } catch (error) {
      // The tenant went (or is going) since the invite was made: the token opens nothing.
      if (error instanceof HttpError && error.status < 500) return { status: 'invalid_token' };
      throw error;
    }
    await deps.store.link({
      platform: request.platform,
      external_user_id: request.external_user_id,
      tenant_id: invite.tenant_id,
      chat_id: chatOf(request.platform, request.external_user_id),
      registered_at: now,
    });
    if (!(await deps.store.consumeInvite(request.token, user, deps.now()))) {
      throw new Error(`invite token of ${user} lost its claim while registering`);
    }
    return { status: 'registered', tenant_id: invite.tenant_id };
  } catch (error) {
    log.warn('messaging registration did not finish; the token stays claimed for its user', {
      user,
      error: (error as Error).message,
    });
    return { status: 'unavailable' };
  }
}

export type Resolution = { status: 'ok'; tenant_id: string | null } | { status: 'unavailable' };

export async function resolveUser(
  deps: MessagingDeps,
  platform: string,
  externalUserId: string,
): Promise<Resolution> {
  try {
    const link = await deps.store.resolve(platform, externalUserId);
    return { status: 'ok', tenant_id: link?.tenant_id ?? null };
  } catch (error) {
    log.warn('messaging resolve: the store did not answer', { error: (error as Error).message });
    return { status: 'unavailable' };
  }
}

/** `POST /messaging/send`: one message for each chat linked to the tenant now. */
export async function sendToTenant(deps: MessagingDeps, tenantId: string, text: string) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const chats = await deps.store.linkedChats(tenant.full);
  for (const chat of chats) {
    const now = deps.now();
    await deps.outbound.enqueue({
      tenant_id: tenant.full,
      message_id: newMessageId(now),
      chat_id: chat.chat_id,
      platform: chat.platform,
      text,
      source: 'send',
      created_at: now,
    });
  }
  return { queued: chats.length };
}

/**
 * Takes the platform's waiting messages, oldest first: each is removed by a conditional delete, so a message
 * two drains both see goes to one of them. A message for every linked chat (a job's notice) is taken by the
 * first drain that meets it, whatever its platform: it returns it for each of the tenant's chats on its own
 * platform and queues it for each chat on another one, whose drain returns it. One no chat can receive is
 * dropped with a warning.
 */
export async function drain(deps: MessagingDeps, platform: string) {
  const out: { chat_id: string; text: string }[] = [];
  const chatsOf = new Map<string, Promise<ChatLink[]>>();
  for (const candidate of await deps.outbound.pending(platform, DRAIN_BATCH)) {
    const message: OutboundMessage | undefined = await deps.outbound.take(
      candidate.tenant_id,
      candidate.message_id,
    );
    if (!message) continue;
    if (message.chat_id !== null) {
      out.push({ chat_id: message.chat_id, text: message.text });
      continue;
    }
    let chats = chatsOf.get(message.tenant_id);
    if (!chats) {
      chats = deps.store.linkedChats(message.tenant_id);
      chatsOf.set(message.tenant_id, chats);
    }
    const linked = await chats;
    if (linked.length === 0) {
      log.warn('outbound message dropped: the tenant has no linked chat', {
        tenant: message.tenant_id,
        source: message.source,
      });
    }
    for (const chat of linked) {
      if (chat.platform === platform) out.push({ chat_id: chat.chat_id, text: message.text });
      else
        await deps.outbound.enqueue({
          ...message,
          message_id: `${message.message_id}.${chat.platform}.${chat.chat_id}`,
          chat_id: chat.chat_id,
          platform: chat.platform,
        });
    }
  }
  return out;
}

/** How many chats of the tenant are linked (provisioning's notify step reports through them when any is). */
export async function linkedChatCount(deps: Pick<MessagingDeps, 'store'>, tenantId: string) {
  return (await deps.store.linkedChats(tenantId)).length;
}
