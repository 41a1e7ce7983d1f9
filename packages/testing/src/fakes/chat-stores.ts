/** In-memory conversation and harness key stores, with the ordering and revocation of their DynamoDB adapters. */
import type {
  ConversationStore,
  HarnessKeyStore,
  NewMessage,
  StoredKey,
  StoredMessage,
  ThreadSummary,
} from '@tessera/chat';
import { titleOf } from '@tessera/chat';

interface Thread extends ThreadSummary {
  /** Messages with their order key (time, then append, then position), as the adapter sorts them. */
  messages: { key: string; message: StoredMessage }[];
}

let appends = 0;

export class InMemoryConversationStore implements ConversationStore {
  private readonly tenants = new Map<string, Map<string, Thread>>();

  private threadsOf(tenantId: string): Map<string, Thread> {
    let threads = this.tenants.get(tenantId);
    if (!threads) {
      threads = new Map();
      this.tenants.set(tenantId, threads);
    }
    return threads;
  }

  async append(tenantId: string, contextId: string, messages: NewMessage[], now: number): Promise<void> {
    if (messages.length === 0) return;
    const threads = this.threadsOf(tenantId);
    let thread = threads.get(contextId);
    if (!thread) {
      thread = {
        context_id: contextId,
        title: titleOf(messages[0]!.content),
        updated_at: now,
        message_count: 0,
        messages: [],
      };
      threads.set(contextId, thread);
    }
    const append = String(appends++).padStart(12, '0');
    messages.forEach((message, n) => {
      thread.messages.push({
        key: `${String(now).padStart(15, '0')}#${append}#${String(n).padStart(4, '0')}`,
        message: { ...message, created_at: now },
      });
    });
    thread.messages.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    thread.updated_at = now;
    thread.message_count += messages.length;
  }

  async recent(tenantId: string, contextId: string, limit: number): Promise<StoredMessage[]> {
    const thread = this.threadsOf(tenantId).get(contextId);
    return (thread?.messages ?? []).slice(-limit).map((entry) => ({ ...entry.message }));
  }

  async thread(tenantId: string, contextId: string) {
    const thread = this.threadsOf(tenantId).get(contextId);
    if (!thread) return undefined;
    const { messages, ...summary } = thread;
    return { ...summary, messages: messages.map((entry) => ({ ...entry.message })) };
  }

  async threads(tenantId: string): Promise<ThreadSummary[]> {
    return [...this.threadsOf(tenantId).values()]
      .map(({ messages: _messages, ...summary }) => summary)
      .sort((a, b) => b.updated_at - a.updated_at);
  }

  async remove(tenantId: string, contextId: string): Promise<boolean> {
    return this.threadsOf(tenantId).delete(contextId);
  }

  async removeTenant(tenantId: string): Promise<void> {
    this.tenants.delete(tenantId);
  }
}

export class InMemoryHarnessKeyStore implements HarnessKeyStore {
  private readonly keys = new Map<string, StoredKey>();

  async put(key: StoredKey): Promise<void> {
    if (this.keys.has(key.key_id)) throw new Error(`Key ${key.key_id} exists`);
    this.keys.set(key.key_id, { ...key });
  }

  async get(keyId: string): Promise<StoredKey | undefined> {
    const key = this.keys.get(keyId);
    return key && { ...key };
  }

  async revoke(keyId: string, now: number): Promise<boolean> {
    const key = this.keys.get(keyId);
    if (!key) return false;
    key.revoked_at ??= now;
    return true;
  }

  async removeTenant(tenantId: string): Promise<void> {
    for (const [keyId, key] of this.keys) if (key.tenant_id === tenantId) this.keys.delete(keyId);
  }
}
