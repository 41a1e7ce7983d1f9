/**
 * The contracts of the conversation store (threads per tenant and context id, messages in order, concurrent
 * appends all kept) and of the harness key store (hashes by key id, revocation kept, per-tenant removal).
 */
import type { ConversationStore, HarnessKeyStore } from '@tessera/chat';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export function conversationStoreContract(label: string, make: () => ConversationStore): void {
  describe(`${label} (ConversationStore contract)`, () => {
    it('has no thread before its first append', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      expect(await store.thread(tenant, 'c1')).toBeUndefined();
      expect(await store.recent(tenant, 'c1', 10)).toEqual([]);
      expect(await store.threads(tenant)).toEqual([]);
      expect(await store.remove(tenant, 'c1')).toBe(false);
    });

    it('appends turns in order, titles the thread by its first message, counts its messages', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      await store.append(
        tenant,
        'c1',
        [
          { role: 'user', content: 'What is   merge insert?' },
          { role: 'assistant', content: 'An upsert.', agent: 'search_agent' },
        ],
        1000,
      );
      await store.append(tenant, 'c1', [{ role: 'user', content: 'And deletes?' }], 2000);
      const thread = await store.thread(tenant, 'c1');
      expect(thread).toMatchObject({
        context_id: 'c1',
        title: 'What is merge insert?',
        updated_at: 2000,
        message_count: 3,
      });
      expect(thread!.messages).toEqual([
        { role: 'user', content: 'What is   merge insert?', created_at: 1000 },
        { role: 'assistant', content: 'An upsert.', agent: 'search_agent', created_at: 1000 },
        { role: 'user', content: 'And deletes?', created_at: 2000 },
      ]);
      expect((await store.recent(tenant, 'c1', 2)).map((m) => m.content)).toEqual([
        'An upsert.',
        'And deletes?',
      ]);
    });

    it('keeps every message of concurrent appends to one thread, each append together', async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          store.append(
            tenant,
            'busy',
            [
              { role: 'user', content: `q${i}` },
              { role: 'assistant', content: `a${i}` },
            ],
            5000,
          ),
        ),
      );
      const thread = await store.thread(tenant, 'busy');
      expect(thread!.message_count).toBe(24);
      const contents = thread!.messages.map((m) => m.content);
      expect(new Set(contents).size).toBe(24);
      for (let i = 0; i < 12; i++) expect(contents[contents.indexOf(`q${i}`) + 1]).toBe(`a${i}`);
    });

    it('lists threads newest first and keeps tenants apart', async () => {
      const store = make();
      const a = `${unique('org')}:a`;
      const b = `${unique('org')}:b`;
      await store.append(a, 'old', [{ role: 'user', content: 'old' }], 1000);
      await store.append(a, 'new', [{ role: 'user', content: 'new' }], 3000);
      await store.append(b, 'old', [{ role: 'user', content: 'b only' }], 2000);
      expect((await store.threads(a)).map((t) => t.context_id)).toEqual(['new', 'old']);
      expect((await store.thread(b, 'old'))!.messages.map((m) => m.content)).toEqual(['b only']);
      expect((await store.thread(a, 'old'))!.messages.map((m) => m.content)).toEqual(['old']);
    });

    it('removes one thread, then every thread of a tenant', async () => {
      const store = make();
      const a = `${unique('org')}:a`;
      const b = `${unique('org')}:b`;
      await store.append(a, 'x', [{ role: 'user', content: 'x' }], 1000);
      await store.append(a, 'y', [{ role: 'user', content: 'y' }], 1000);
      await store.append(b, 'x', [{ role: 'user', content: 'bx' }], 1000);
      expect(await store.remove(a, 'x')).toBe(true);
      expect(await store.thread(a, 'x')).toBeUndefined();
      expect(await store.recent(a, 'x', 10)).toEqual([]);
      await store.removeTenant(a);
      expect(await store.threads(a)).toEqual([]);
      expect((await store.threads(b)).map((t) => t.context_id)).toEqual(['x']);
    });
  });
}

export function harnessKeyStoreContract(label: string, make: () => HarnessKeyStore): void {
  describe(`${label} (HarnessKeyStore contract)`, () => {
    const key = (tenant: string, id = unique('hk')) => ({
      key_id: id,
      key_hash: 'ab'.repeat(32),
      tenant_id: tenant,
      expires_at: 2_000_000_000,
    });

    it('keeps a key by its id, and its first revocation', async () => {
      const store = make();
      const stored = key('acme:acme');
      expect(await store.get(stored.key_id)).toBeUndefined();
      await store.put(stored);
      expect(await store.get(stored.key_id)).toEqual(stored);
      expect(await store.revoke(stored.key_id, 1000)).toBe(true);
      expect(await store.revoke(stored.key_id, 2000)).toBe(true);
      expect(await store.get(stored.key_id)).toEqual({ ...stored, revoked_at: 1000 });
      expect(await store.revoke(unique('hk'), 1000)).toBe(false);
    });

    it('refuses a second key of the same id', async () => {
      const store = make();
      const stored = key('acme:acme');
      await store.put(stored);
      await expect(store.put({ ...stored, tenant_id: 'other:other' })).rejects.toThrow();
      expect((await store.get(stored.key_id))?.tenant_id).toBe('acme:acme');
    });

    it("removes a tenant's keys only", async () => {
      const store = make();
      const tenant = `${unique('org')}:t`;
      const mine = [key(tenant), key(tenant)];
      const other = key(`${unique('org')}:u`);
      for (const k of [...mine, other]) await store.put(k);
      await store.removeTenant(tenant);
      for (const k of mine) expect(await store.get(k.key_id)).toBeUndefined();
      expect(await store.get(other.key_id)).toEqual(other);
    });
  });
}
