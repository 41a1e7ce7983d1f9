/** The contracts of the messaging store (invites claimed once, mappings, linked chats) and the outbound queue. */
import type {
  ChatLink,
  MessagingStore,
  OutboundMessage,
  OutboundStore,
  StoredInvite,
} from '@tessera/messaging';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

const NOW = 1_800_000_000_000;

const invite = (tenantId: string, patch: Partial<StoredInvite> = {}): StoredInvite => ({
  token: unique('tok').replace(/[^a-z0-9]/g, ''),
  tenant_id: tenantId,
  created_at: NOW,
  expires_at: NOW / 1000 + 3600,
  claimed_by: null,
  consumed_at: null,
  ...patch,
});

const link = (tenantId: string, userId: string, patch: Partial<ChatLink> = {}): ChatLink => ({
  platform: 'telegram',
  external_user_id: userId,
  tenant_id: tenantId,
  chat_id: userId,
  registered_at: NOW,
  ...patch,
});

export function messagingStoreContract(name: string, make: () => MessagingStore) {
  describe(`MessagingStore contract: ${name}`, () => {
    it('lets exactly one of many users claim a token, and only that user consume it', async () => {
      const store = make();
      const token = invite(unique('org:t'));
      await store.putInvite(token);
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.claimInvite(token.token, `telegram:${i}`, NOW)),
      );
      const winners = claims.filter((claim) => claim !== undefined);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!.claimed_by!;
      expect(winners[0]).toMatchObject({ tenant_id: token.tenant_id, token: token.token, consumed_at: null });
      // The winner's retry resumes; another user's consume changes nothing.
      expect(await store.claimInvite(token.token, winner, NOW + 1)).toMatchObject({ claimed_by: winner });
      expect(await store.consumeInvite(token.token, 'telegram:other', NOW)).toBe(false);
      expect(await store.consumeInvite(token.token, winner, NOW + 2)).toBe(true);
      expect(await store.consumeInvite(token.token, winner, NOW + 3)).toBe(true);
      // Used: nobody claims it again, its user neither.
      expect(await store.claimInvite(token.token, winner, NOW + 4)).toBeUndefined();
    });

    it('refuses unknown and expired tokens', async () => {
      const store = make();
      const expired = invite(unique('org:t'), { expires_at: NOW / 1000 - 1 });
      await store.putInvite(expired);
      expect(await store.claimInvite(expired.token, 'telegram:1', NOW)).toBeUndefined();
      expect(await store.claimInvite('0'.repeat(32), 'telegram:1', NOW)).toBeUndefined();
      expect(await store.consumeInvite('0'.repeat(32), 'telegram:1', NOW)).toBe(false);
    });

    it('maps users to tenants, lists linked chats and moves a user who registers elsewhere', async () => {
      const store = make();
      const a = unique('org:a');
      const b = unique('org:b');
      const user = unique('u');
      expect(await store.link(link(a, user))).toBeUndefined();
      await store.link(link(a, `${user}x`, { platform: 'slack' }));
      expect(await store.resolve('telegram', user)).toMatchObject({ tenant_id: a, chat_id: user });
      expect(await store.resolve('slack', user)).toBeUndefined();
      expect((await store.linkedChats(a)).map((c) => c.external_user_id).sort()).toEqual(
        [user, `${user}x`].sort(),
      );
      expect((await store.linkedChats(a, 'telegram')).map((c) => c.external_user_id)).toEqual([user]);
      expect(await store.link(link(b, user))).toMatchObject({ tenant_id: a });
      expect(await store.resolve('telegram', user)).toMatchObject({ tenant_id: b });
      expect(await store.linkedChats(a, 'telegram')).toEqual([]);
      expect((await store.linkedChats(b)).map((c) => c.chat_id)).toEqual([user]);
    });

    it("purges a tenant's invites, mappings and chats, and nothing of another tenant", async () => {
      const store = make();
      const a = unique('org:a');
      const b = unique('org:b');
      const mine = invite(a);
      const theirs = invite(b);
      await store.putInvite(mine);
      await store.putInvite(theirs);
      await store.link(link(a, unique('u')));
      const kept = unique('u');
      await store.link(link(b, kept));
      expect(await store.purgeTenant(a)).toBe(2);
      expect(await store.linkedChats(a)).toEqual([]);
      expect(await store.claimInvite(mine.token, 'telegram:1', NOW)).toBeUndefined();
      expect(await store.claimInvite(theirs.token, 'telegram:1', NOW)).toBeDefined();
      expect(await store.resolve('telegram', kept)).toMatchObject({ tenant_id: b });
    });
  });
}

const message = (tenantId: string, i: number, patch: Partial<OutboundMessage> = {}): OutboundMessage => ({
  tenant_id: tenantId,
  message_id: `${String(NOW + i).padStart(15, '0')}_${i}`,
  chat_id: null,
  platform: null,
  text: `m${i}`,
  source: 'job:x',
  created_at: NOW + i,
  ...patch,
});

export function outboundStoreContract(name: string, make: () => OutboundStore) {
  describe(`OutboundStore contract: ${name}`, () => {
    it('keeps a tenant’s messages in order and purges them', async () => {
      const store = make();
      const tenant = unique('t');
      const other = unique('t');
      for (const [i, t] of [tenant, other, tenant].entries()) await store.enqueue(message(t, i));
      expect((await store.list(tenant)).map((m) => m.text)).toEqual(['m0', 'm2']);
      expect(await store.purgeTenant(tenant)).toBe(2);
      expect(await store.list(tenant)).toEqual([]);
      expect((await store.list(other)).map((m) => m.text)).toEqual(['m1']);
      await store.purgeTenant(other);
    });

    it('answers every tenant’s waiting messages oldest first and gives each to one take', async () => {
      const store = make();
      const a = unique('t');
      const b = unique('t');
      await store.enqueue(message(a, 7, { chat_id: '42', platform: 'telegram' }));
      await store.enqueue(message(b, 3));
      const waiting = (await store.pending('telegram', 1000)).filter(
        (m) => m.tenant_id === a || m.tenant_id === b,
      );
      expect(waiting.map((m) => m.text)).toEqual(['m3', 'm7']);
      expect(waiting[1]).toMatchObject({ chat_id: '42', platform: 'telegram', source: 'job:x' });
      const takes = await Promise.all(
        Array.from({ length: 10 }, () => store.take(a, waiting[1]!.message_id)),
      );
      expect(takes.filter((t) => t !== undefined)).toEqual([waiting[1]]);
      expect(await store.list(a)).toEqual([]);
      expect(await store.take(b, 'absent')).toBeUndefined();
      expect(await store.take(b, waiting[0]!.message_id)).toMatchObject({ text: 'm3', chat_id: null });
    });

    it("answers a platform's messages and those for every chat, never another platform's", async () => {
      const store = make();
      const tenant = unique('t');
      await store.enqueue(message(tenant, 1, { chat_id: 'S1', platform: 'slack' }));
      await store.enqueue(message(tenant, 2, { chat_id: '42', platform: 'telegram' }));
      await store.enqueue(message(tenant, 3));
      const mine = (platform: string) =>
        store
          .pending(platform, 1000)
          .then((all) => all.filter((m) => m.tenant_id === tenant).map((m) => m.text));
      expect(await mine('telegram')).toEqual(['m2', 'm3']);
      expect(await mine('slack')).toEqual(['m1', 'm3']);
      // The limit counts the platform's messages only.
      expect((await store.pending('telegram', 1)).some((m) => m.platform === 'slack')).toBe(false);
      await store.purgeTenant(tenant);
    });
  });
}
