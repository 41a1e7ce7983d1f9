/**
 * Messaging admin through the local runtime: invites, 50 concurrent registrations of one token (exactly one
 * wins, in every round), unknown, used, expired and other-user tokens, resolve, `/messaging/send` and
 * concurrent drains that never hand out one message twice, and a tenant delete forgetting its chats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const TENANT = 'chatorg:alpha';
let rt: RuntimeProcess;

beforeAll(async () => {
  rt = await spawnRuntime({ env: { TESSERA_SCHEDULER: 'off' } });
  for (const tenant_id of [TENANT, 'chatorg:beta', 'chatorg:gone']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id })).status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await rt?.stop();
});

const invite = async (tenant_id: string, expires_in_hours?: number) => {
  const answer = await call(rt.url, 'POST', '/admin/messaging/invite', { tenant_id, expires_in_hours });
  expect(answer.status).toBe(201);
  return answer.body.token as string;
};

const register = (external_user_id: string, token: string) =>
  call(rt.url, 'POST', '/admin/messaging/register', { platform: 'telegram', external_user_id, token });

const resolve = (user: string) =>
  call(
    rt.url,
    'GET',
    `/admin/messaging/resolve?platform=telegram&external_user_id=${encodeURIComponent(user)}`,
  );

describe('messaging admin', () => {
  it('mints invites: 32 hex digits, the expiry asked for, 404 for an unregistered tenant, 422 out of range', async () => {
    const before = Date.now();
    const answer = await call(rt.url, 'POST', '/admin/messaging/invite', { tenant_id: TENANT });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ tenant_id: TENANT, token: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const hours = (Date.parse(answer.body.expires_at) - before) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThan(24.1);
    expect(
      (await call(rt.url, 'POST', '/admin/messaging/invite', { tenant_id: 'chatorg:nobody' })).status,
    ).toBe(404);
    for (const expires_in_hours of [0, 721, 1.5]) {
      expect(
        (await call(rt.url, 'POST', '/admin/messaging/invite', { tenant_id: TENANT, expires_in_hours }))
          .status,
      ).toBe(422);
    }
  });

  it('registers exactly one of 50 concurrent registrations of one token, round after round', async () => {
    for (let round = 0; round < 3; round++) {
      const token = await invite(TENANT);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => register(`race${round}_${i}`, token)),
      );
      const won = answers.filter((a) => a.status === 200);
      expect(won.map((a) => a.body)).toEqual([{ status: 'registered', tenant_id: TENANT }]);
      expect(answers.filter((a) => a.status === 404 && a.body.status === 'invalid_token')).toHaveLength(49);
      const winner = answers.indexOf(won[0]!);
      expect((await resolve(`race${round}_${winner}`)).body).toEqual({ status: 'ok', tenant_id: TENANT });
      expect((await resolve(`race${round}_${(winner + 1) % 50}`)).body).toEqual({
        status: 'ok',
        tenant_id: null,
      });
    }
  }, 120_000);

  it('refuses unknown, used and malformed tokens with invalid_token, and resolves the registered user', async () => {
    expect((await register('u1', '0'.repeat(32))).body).toEqual({ status: 'invalid_token' });
    expect((await register('u1', 'nonsense')).status).toBe(404);
    const token = await invite('chatorg:beta', 1);
    expect((await register('u1', token)).body).toEqual({ status: 'registered', tenant_id: 'chatorg:beta' });
    const used = await register('u1', token);
    expect([used.status, used.body]).toEqual([404, { status: 'invalid_token' }]);
    expect((await register('u2', token)).status).toBe(404);
    expect((await resolve('u1')).body).toEqual({ status: 'ok', tenant_id: 'chatorg:beta' });
    expect((await resolve('nobody')).body).toEqual({ status: 'ok', tenant_id: null });
    expect(
      (await call(rt.url, 'POST', '/admin/messaging/register', { platform: 'telegram', token })).status,
    ).toBe(422);
  });

  it('queues sends for the linked chats; concurrent drains hand each message out once', async () => {
    const tenant = 'chatorg:beta';
    const token = await invite(tenant);
    expect((await register('u2', token)).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const sent = await call(rt.url, 'POST', '/messaging/send', { tenant_id: tenant, text: `notice ${i}` });
      expect(sent.body).toEqual({ queued: 2 });
    }
    const drains = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(rt.url, 'GET', '/admin/messaging/outbound/drain?platform=telegram'),
      ),
    );
    const got = drains.flatMap((d) => d.body as { chat_id: string; text: string }[]);
    expect(got).toHaveLength(40);
    expect(new Set(got.map((m) => `${m.chat_id}|${m.text}`)).size).toBe(40);
    // Each chat gets all of its notices.
    for (const chat of ['u1', 'u2']) {
      const mine = drains.flatMap((d) => d.body.filter((m: { chat_id: string }) => m.chat_id === chat));
      expect(mine).toHaveLength(20);
    }
    expect((await call(rt.url, 'GET', '/admin/messaging/outbound/drain')).body).toEqual([]);
    expect(
      (await call(rt.url, 'POST', '/messaging/send', { tenant_id: 'chatorg:nobody', text: 'x' })).status,
    ).toBe(404);
    expect((await call(rt.url, 'POST', '/messaging/send', { tenant_id: tenant, text: '  ' })).status).toBe(
      422,
    );
  });

  it("forgets a deleted tenant's linked chats and invites", async () => {
    const token = await invite('chatorg:gone');
    const spare = await invite('chatorg:gone');
    expect((await register('g1', token)).status).toBe(200);
    expect((await call(rt.url, 'DELETE', '/admin/tenants/chatorg:gone')).status).toBe(200);
    expect((await resolve('g1')).body).toEqual({ status: 'ok', tenant_id: null });
    expect((await register('g2', spare)).body).toEqual({ status: 'invalid_token' });
  });
});
