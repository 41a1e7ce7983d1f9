/**
 * The messaging store ports: invite tokens and user-to-tenant mappings (with each tenant's linked chats) under
 * the reserved system tenant, and the outbound messages queued for tenants' chats.
 */

/** An invite token: claimed by one external user (`<platform>:<user id>`), then consumed. */
export interface StoredInvite {
  token: string;
  tenant_id: string;
  /** Epoch ms. */
  created_at: number;
  /** Epoch seconds (DynamoDB's TTL attribute; readers check it, as TTL deletes late). */
  expires_at: number;
  claimed_by: string | null;
  consumed_at: number | null;
}

/** A registered chat user: the tenant they use and the chat that reaches them (Telegram: their private chat). */
export interface ChatLink {
  platform: string;
  external_user_id: string;
  tenant_id: string;
  chat_id: string;
  /** Epoch ms. */
  registered_at: number;
}

export interface MessagingStore {
  putInvite(invite: StoredInvite): Promise<void>;
  /**
   * Claims the token for `user` (a conditional write): only while it is unexpired at `now` (epoch ms), not
   * consumed, and unclaimed or claimed by `user` already (so that user's retry resumes). The invite when
   * claimed, undefined otherwise: of concurrent claims by different users exactly one succeeds.
   */
  claimInvite(token: string, user: string, now: number): Promise<StoredInvite | undefined>;
  /** Marks the token used, only while `user` holds its claim; true when it is (now or already) consumed by them. */
  consumeInvite(token: string, user: string, now: number): Promise<boolean>;
  /**
   * Maps the user to the link's tenant and lists the chat among that tenant's linked chats; a mapping to another
   * tenant is replaced (its chat unlinked there). The previous mapping, if any.
   */
  link(link: ChatLink): Promise<ChatLink | undefined>;
  resolve(platform: string, externalUserId: string): Promise<ChatLink | undefined>;
  /** The tenant's linked chats, of one platform or of all. */
  linkedChats(tenantId: string, platform?: string): Promise<ChatLink[]>;
  /** Removes the tenant's invites, mappings and linked chats; how many items went. */
  purgeTenant(tenantId: string): Promise<number>;
}

/**
 * A message for a tenant's linked chats, in the order queued (`message_id` sorts by time). `chat_id` null:
 * every linked chat of the platform that drains it; `platform` null: any platform.
 */
export interface OutboundMessage {
  tenant_id: string;
  message_id: string;
  chat_id: string | null;
  platform?: string | null;
  text: string;
  source: string;
  created_at: number;
}

export interface OutboundStore {
  enqueue(message: OutboundMessage): Promise<void>;
  /** The tenant's messages, oldest first. */
  list(tenantId: string): Promise<OutboundMessage[]>;
  /**
   * Messages of every tenant waiting for the platform (its own, and those for every linked chat), oldest
   * first, at most `limit`: messages of other platforms never hold them back.
   */
  pending(platform: string, limit: number): Promise<OutboundMessage[]>;
  /**
   * Removes the message and answers it, only if it is still there (a conditional delete): of concurrent takes
   * of one message exactly one gets it.
   */
  take(tenantId: string, messageId: string): Promise<OutboundMessage | undefined>;
  /** Removes every message of the tenant. */
  purgeTenant(tenantId: string): Promise<number>;
}
