/** Messaging's domain over the fakes: invites, registration exactly once and resumable, resolve, send, drain. */
import { createTenant, deleteTenant } from '@tessera/tenancy';
import { fakeDomains } from '@tessera/testing/fakes';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createInvite,
  DRAIN_BATCH,
  drain,
  queueForTenant,
  register,
  resolveUser,
  sendToTenant,
} from '../src/index';

const domains = fakeDomains();
const deps = domains.messaging;
const TENANT = 'msgorg:alpha';
const OTHER = 'msgorg:beta';

beforeAll(async () => {
  await createTenant(domains.tenancy, { tenant_id: TENANT, created_by: 'test' });
  await createTenant(domains.tenancy, { tenant_id: OTHER, created_by: 'test' });
});

const registration = (user: string, token: string) =>
  register(deps, { platform: 'telegram', external_user_id: user, token });

describe('invites', () => {
  it('mints 32-hex tokens for registered tenants that expire when asked', async () => {
    const before = domains.clock.now();
    const invite = await createInvite(deps, 'msgorg:alpha', 2);
    expect(invite.token).toMatch(/^[0-9a-f]{32}$/);
    expect(invite.tenant_id).toBe(TENANT);
    const expires = Date.parse(invite.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(2 * 3_600_000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(2 * 3_600_000 + 1000);
    await expect(createInvite(deps, 'msgorg:nobody', 24)).rejects.toMatchObject({ status: 404 });
    await expect(createInvite(deps, 'bad:id:x', 24)).rejects.toMatchObject({ status: 400 });
  });
});

describe('register', () => {
  it('registers exactly one of many concurrent users of a token', async () => {
    const { token } = await createInvite(deps, TENANT, 24);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => registration(`r${i}`, token)));
    expect(answers.filter((a) => a.status === 'registered')).toEqual([
      { status: 'registered', tenant_id: TENANT },
    ]);
    expect(answers.filter((a) => a.status === 'invalid_token')).toHaveLength(49);
  });

  it('refuses unknown, malformed, used and expired tokens', async () => {
    expect(await registration('u1', '0'.repeat(32))).toEqual({ status: 'invalid_token' });
    expect(await registration('u1', 'not-a-token')).toEqual({ status: 'invalid_token' });
    const { token } = await createInvite(deps, TENANT, 1);
    expect(await registration('u1', token)).toEqual({ status: 'registered', tenant_id: TENANT });
    expect(await registration('u1', token)).toEqual({ status: 'invalid_token' });
    expect(await registration('u2', token)).toEqual({ status: 'invalid_token' });
    const late = await createInvite(deps, TENANT, 1);
    domains.clock.offset += 3_600_000 + 1000;
    try {
      expect(await registration('u3', late.token)).toEqual({ status: 'invalid_token' });
    } finally {
      domains.clock.offset -= 3_600_000 + 1000;
    }
  });

  it('keeps a token claimed for the user whose registration failed, whose retry resumes', async () => {
    const { token } = await createInvite(deps, OTHER, 24);
    const link = deps.store.link.bind(deps.store);
    deps.store.link = async () => {
      throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
    };
    try {
      expect(await registration('claimer', token)).toEqual({ status: 'unavailable' });
    } finally {
      deps.store.link = link;
    }
    expect(await registration('thief', token)).toEqual({ status: 'invalid_token' });
    expect(await resolveUser(deps, 'telegram', 'claimer')).toEqual({ status: 'ok', tenant_id: null });
    expect(await registration('claimer', token)).toEqual({ status: 'registered', tenant_id: OTHER });
    expect(await resolveUser(deps, 'telegram', 'claimer')).toEqual({ status: 'ok', tenant_id: OTHER });
  });

  it('answers unavailable when the store does not answer', async () => {
    const { token } = await createInvite(deps, TENANT, 24);
    deps.store.down = true;
    try {
      expect(await registration('u9', token)).toEqual({ status: 'unavailable' });
      expect(await resolveUser(deps, 'telegram', 'u9')).toEqual({ status: 'unavailable' });
    } finally {
      deps.store.down = false;
    }
    expect(await registration('u9', token)).toEqual({ status: 'registered', tenant_id: TENANT });
  });
});

describe('outbound', () => {
  it("sends to a tenant's linked chats and drains each message once, job notices to every chat", async () => {
    const tenant = 'msgorg:gamma';
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
    expect(await sendToTenant(deps, tenant, 'nobody yet')).toEqual({ queued: 0 });
    for (const user of ['c1', 'c2']) {
      const { token } = await createInvite(deps, tenant, 24);
      await registration(user, token);
    }
    expect(await sendToTenant(deps, tenant, 'hello')).toEqual({ queued: 2 });
    await queueForTenant(deps, tenant, "Job 'digest': done", 'job:j1');
    const [first, second] = await Promise.all([drain(deps, 'telegram'), drain(deps, 'telegram')]);
    const all = [...first!, ...second!].filter((m) => m.chat_id === 'c1' || m.chat_id === 'c2');
    expect(all.map((m) => `${m.chat_id}:${m.text}`).sort()).toEqual(
      ['c1:hello', 'c2:hello', "c1:Job 'digest': done", "c2:Job 'digest': done"].sort(),
    );
    expect(await drain(deps, 'telegram')).toEqual([]);
    await expect(sendToTenant(deps, 'msgorg:nobody', 'x')).rejects.toMatchObject({ status: 404 });
  });

  it('leaves other platforms’ messages for their own drain', async () => {
    const tenant = 'msgorg:delta';
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
    const { token } = await createInvite(deps, tenant, 24);
    await register(deps, { platform: 'slack', external_user_id: 'S1', token });
    expect(await sendToTenant(deps, tenant, 'to slack')).toEqual({ queued: 1 });
    expect(await drain(deps, 'telegram')).toEqual([]);
    expect(await drain(deps, 'slack')).toEqual([{ chat_id: 'S1', text: 'to slack' }]);
  });

  it("gives a job's notice to the tenant's chats on every platform, whichever platform drains first", async () => {
    const tenant = 'msgorg:zeta';
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
    await registration('z1', (await createInvite(deps, tenant, 24)).token);
    await register(deps, {
      platform: 'slack',
      external_user_id: 'S2',
      token: (await createInvite(deps, tenant, 24)).token,
    });
    await queueForTenant(deps, tenant, "Job 'digest': done", 'job:j2');
    const mine = (drained: { chat_id: string; text: string }[]) =>
      drained.filter((m) => m.chat_id === 'z1' || m.chat_id === 'S2');
    // A drain of a platform the tenant may have no chat on takes it, and keeps it for the others.
    expect(mine(await drain(deps, 'whatsapp'))).toEqual([]);
    expect(mine(await drain(deps, 'slack'))).toEqual([{ chat_id: 'S2', text: "Job 'digest': done" }]);
    expect(mine(await drain(deps, 'telegram'))).toEqual([{ chat_id: 'z1', text: "Job 'digest': done" }]);
    expect(await deps.outbound.list(tenant)).toEqual([]);
  });

  it("is not held back by a full batch of another platform's messages", async () => {
    const tenant = 'msgorg:eta';
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
    await register(deps, {
      platform: 'slack',
      external_user_id: 'S3',
      token: (await createInvite(deps, tenant, 24)).token,
    });
    for (let i = 0; i < DRAIN_BATCH + 5; i++) await sendToTenant(deps, tenant, `slack ${i}`);
    await registration('h1', (await createInvite(deps, tenant, 24)).token);
    await sendToTenant(deps, tenant, 'for both');
    const telegram = (await drain(deps, 'telegram')).filter((m) => m.chat_id === 'h1');
    expect(telegram).toEqual([{ chat_id: 'h1', text: 'for both' }]);
    await deps.outbound.purgeTenant(tenant);
  });

  it("forgets a deleted tenant's chats and invites", async () => {
    const tenant = 'msgorg:epsilon';
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
    const { token } = await createInvite(deps, tenant, 24);
    await registration('e1', token);
    const unused = await createInvite(deps, tenant, 24);
    await deleteTenant(domains.tenancy, tenant);
    expect(await resolveUser(deps, 'telegram', 'e1')).toEqual({ status: 'ok', tenant_id: null });
    expect(await registration('e2', unused.token)).toEqual({ status: 'invalid_token' });
  });
});
