/**
 * Conversations (clarifications "Chat, conversations, AG-UI, harness keys"): the threads of a tenant, keyed
 * by context id, each a list of user and assistant messages. The port, and what every adapter shares.
 */
import type { Chat } from '@tessera/api';

export interface NewMessage {
  role: 'user' | 'assistant';
  content: string;
  /** The agent that answered (assistant messages). */
  agent?: string;
}

export interface StoredMessage extends NewMessage {
  /** Epoch ms. */
  created_at: number;
}

export interface ThreadSummary {
  context_id: string;
  title: string;
  /** Epoch ms of the last append. */
  updated_at: number;
  message_count: number;
}

export interface ConversationStore {
  /**
   * Appends messages to a thread (created by its first append), in their order, after every message appended
   * before; concurrent appends to one thread all land, each one's messages together.
   */
  append(tenantId: string, contextId: string, messages: NewMessage[], now: number): Promise<void>;
  /** The thread's newest `limit` messages, oldest first (none when the thread does not exist). */
  recent(tenantId: string, contextId: string, limit: number): Promise<StoredMessage[]>;
  /** The thread with every message, oldest first; undefined when there is none. */
  thread(
    tenantId: string,
    contextId: string,
  ): Promise<(ThreadSummary & { messages: StoredMessage[] }) | undefined>;
  /** The tenant's threads, most recently updated first. */
  threads(tenantId: string): Promise<ThreadSummary[]>;
  /** Removes a thread; false when there was none. */
  remove(tenantId: string, contextId: string): Promise<boolean>;
  /** Removes every thread of the tenant. */
  removeTenant(tenantId: string): Promise<void>;
}

/** A thread's title: its first message, on one line, cut to 80 characters. */
export function titleOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

export const iso = (ms: number) => new Date(ms).toISOString();

export function threadAnswer(summary: ThreadSummary): Chat.ConversationThread {
  return { ...summary, updated_at: iso(summary.updated_at) };
}
