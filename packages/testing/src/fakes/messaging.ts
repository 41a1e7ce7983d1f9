/**
 * In-memory messaging stores: invites claimed and consumed under the same conditions as the DynamoDB
 * adapter's conditional writes, mappings with their linked chats, and the outbound queue whose take removes
 * a message once.
 */
import type {
  ChatLink,
  MessagingStore,
  OutboundMessage,
  OutboundStore,
  StoredInvite,
} from '@tessera/messaging';

const userKey = (platform: string, userId: string) => `${platform}\u0000${userId}`;

export class InMemoryMessagingStore implements MessagingStore {
  readonly invites = new Map<string, StoredInvite>();
  readonly users = new Map<string, ChatLink>();
  /** Linked chats by tenant, then by user key. */
  readonly chats = new Map<string, Map<string, ChatLink>>();
  /** Makes every call fail (a store outage) while set. */
  down = false;

  private check() {
    if (this.down) throw Object.assign(new Error('messaging store unavailable'), { code: 'ECONNREFUSED' });
  }

  async putInvite(invite: StoredInvite) {
    this.check();
    if (this.invites.has(invite.token)) throw new Error(`invite ${invite.token} exists`);
    this.invites.set(invite.token, structuredClone(invite));
  }

  async claimInvite(token: string, user: string, now: number) {
    this.check();
    const invite = this.invites.get(token);
    if (!invite || invite.expires_at <= Math.floor(now / 1000) || invite.consumed_at !== null)
      return undefined;
    if (invite.claimed_by !== null && invite.claimed_by !== user) return undefined;
    invite.claimed_by = user;
    return structuredClone(invite);
  }

  async consumeInvite(token: string, user: string, now: number) {
    this.check();
    const invite = this.invites.get(token);
    if (!invite || invite.claimed_by !== user) return false;
    invite.consumed_at ??= now;
    return true;
  }

  async link(link: ChatLink) {
    this.check();
    const key = userKey(link.platform, link.external_user_id);
    const previous = this.users.get(key);
    this.users.set(key, structuredClone(link));
    const chats = this.chats.get(link.tenant_id) ?? new Map<string, ChatLink>();
    chats.set(key, structuredClone(link));
    this.chats.set(link.tenant_id, chats);
    if (previous && previous.tenant_id !== link.tenant_id) this.chats.get(previous.tenant_id)?.delete(key);
    return previous ? structuredClone(previous) : undefined;
  }

  async resolve(platform: string, externalUserId: string) {
    this.check();
    const link = this.users.get(userKey(platform, externalUserId));
    return link ? structuredClone(link) : undefined;
  }

  async linkedChats(tenantId: string, platform?: string) {
    this.check();
    return [...(this.chats.get(tenantId)?.values() ?? [])]
      .filter((chat) => platform === undefined || chat.platform === platform)
      .map((chat) => structuredClone(chat));
  }

  async purgeTenant(tenantId: string) {
    this.check();
    let removed = 0;
    for (const [key, chat] of this.chats.get(tenantId) ?? []) {
      if (this.users.get(key)?.tenant_id === tenantId) this.users.delete(key);
      removed++;
      void chat;
    }
    this.chats.delete(tenantId);
    for (const [token, invite] of this.invites) {
      if (invite.tenant_id === tenantId) {
        this.invites.delete(token);
        removed++;
      }
    }
    return removed;
  }
}

const byAge = (a: OutboundMessage, b: OutboundMessage) =>
  a.created_at - b.created_at || (a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : 0);

export class InMemoryOutboundStore implements OutboundStore {
  readonly messages: OutboundMessage[] = [];

  async enqueue(message: OutboundMessage) {
    this.messages.push(structuredClone({ ...message, platform: message.platform ?? null }));
  }

  async list(tenantId: string) {
    return this.messages
      .filter((m) => m.tenant_id === tenantId)
      .sort(byAge)
      .map((m) => structuredClone(m));
  }

  async pending(platform: string, limit: number) {
    return this.messages
      .filter((m) => m.platform === null || m.platform === platform)
      .sort(byAge)
      .slice(0, limit)
      .map((m) => structuredClone(m));
  }

  async take(tenantId: string, messageId: string) {
    const at = this.messages.findIndex((m) => m.tenant_id === tenantId && m.message_id === messageId);
    if (at < 0) return undefined;
    const [message] = this.messages.splice(at, 1);
    return message;
  }

  async purgeTenant(tenantId: string) {
    const before = this.messages.length;
    for (let i = this.messages.length - 1; i >= 0; i--)
      if (this.messages[i]!.tenant_id === tenantId) this.messages.splice(i, 1);
    return before - this.messages.length;
  }
}
