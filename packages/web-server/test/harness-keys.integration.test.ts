/** Harness keys against a loopback runtime speaking the mint and revoke contract. */
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessKeyError, HarnessKeys } from '../src/harness-keys';
import { closedPort, type FakeRuntime, json, loopbackWebServer, startFakeRuntime } from './fake-runtime';

interface KeyRuntime extends FakeRuntime {
  mints: { tenant_id: string; ttl: number }[];
  revoked: string[];
  live: Set<string>;
}

/** The runtime's key routes: mints after `delayMs`, and refuses tenants in `unknown`. */
async function keyRuntime(options: { delayMs?: number; unknown?: string[]; clock?: () => number } = {}) {
  const clock = options.clock ?? Date.now;
  const mints: KeyRuntime['mints'] = [];
  const revoked: string[] = [];
  const live = new Set<string>();
  let next = 0;
  const runtime = await startFakeRuntime(async (seen, res) => {
    if (seen.method === 'POST' && seen.url === '/admin/harness/keys') {
      const body = JSON.parse(seen.body.toString()) as { tenant_id: string; ttl: number };
      mints.push(body);
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (options.unknown?.includes(body.tenant_id))
        return json(res, 404, { detail: `Tenant '${body.tenant_id}' not registered.` });
      const keyId = `hk_${++next}`;
      live.add(keyId);
      return json(res, 201, {
        key_id: keyId,
        key: `secret-${next}`,
        tenant_id: body.tenant_id,
        expires_at: new Date(clock() + body.ttl * 1000).toISOString(),
      });
    }
    const revoke = /^\/admin\/harness\/keys\/([^/]+)$/.exec(seen.url);
    if (seen.method === 'DELETE' && revoke) {
      const keyId = decodeURIComponent(revoke[1]!);
      if (!live.delete(keyId)) return json(res, 404, { detail: `Harness key '${keyId}' not found` });
      revoked.push(keyId);
      return json(res, 200, { status: 'revoked', key_id: keyId });
    }
    json(res, 404, { detail: 'Not Found' });
  });
  return Object.assign(runtime, { mints, revoked, live }) as KeyRuntime;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setUp(options: Parameters<typeof keyRuntime>[0] & { ttlSeconds?: number } = {}) {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = () => now;
  const runtime = await keyRuntime({ ...options, clock });
  cleanup.push(() => runtime.close());
  const keys = new HarnessKeys({
    runtimeUrl: runtime.url,
    ttlSeconds: options.ttlSeconds ?? 3600,
    now: clock,
  });
  return {
    runtime,
    keys,
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
  };
}

describe('HarnessKeys', () => {
  it("mints a tenant's key on its first run with the configured ttl, and reuses it while half the ttl remains", async () => {
    const { runtime, keys, advance } = await setUp({ ttlSeconds: 3600 });
    const first = await keys.keyFor('acme:prod');
    expect(first).toBe('secret-1');
    expect(runtime.mints).toEqual([{ tenant_id: 'acme:prod', ttl: 3600 }]);
    advance(1799);
    expect(await keys.keyFor('acme:prod')).toBe(first);
    expect(runtime.mints).toHaveLength(1);
  });

  it('mints a replacement once less than half the ttl remains', async () => {
    const { runtime, keys, advance } = await setUp({ ttlSeconds: 3600 });
    await keys.keyFor('acme:prod');
    advance(1801);
    expect(await keys.keyFor('acme:prod')).toBe('secret-2');
    expect(runtime.mints).toHaveLength(2);
    expect(keys.outstanding).toBe(2);
  });

  it('renews an expired key transparently', async () => {
    const { keys, advance } = await setUp({ ttlSeconds: 60 });
    await keys.keyFor('acme:prod');
    advance(61);
    expect(await keys.keyFor('acme:prod')).toBe('secret-2');
    // The expired key is no longer held, so nothing revokes it.
    expect(keys.outstanding).toBe(1);
  });

  it('runs one mint at a time per tenant: concurrent callers share it', async () => {
    const { runtime, keys } = await setUp({ delayMs: 150 });
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => keys.keyFor('acme:prod')),
      keys.keyFor('acme:dev'),
    ]);
    expect(new Set(answers.slice(0, 10)).size).toBe(1);
    expect(runtime.mints.map((mint) => mint.tenant_id).sort()).toEqual(['acme:dev', 'acme:prod']);
  });

  it('keeps a still-valid key when its replacement cannot be minted, and fails once it expired', async () => {
    const { runtime, keys, advance } = await setUp({ ttlSeconds: 100 });
    const held = await keys.keyFor('acme:prod');
    advance(60);
    await runtime.close();
    expect(await keys.keyFor('acme:prod')).toBe(held);
    advance(50);
    await expect(keys.keyFor('acme:prod')).rejects.toMatchObject({
      status: 502,
      detail: 'Runtime unavailable',
    });
  });

  it("passes the runtime's refusal on with its status and detail", async () => {
    const { keys } = await setUp({ unknown: ['acme:gone'] });
    const failure = await keys.keyFor('acme:gone').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HarnessKeyError);
    expect(failure).toMatchObject({ status: 404, detail: "Tenant 'acme:gone' not registered." });
  });

  it('answers 502 when the runtime does not answer', async () => {
    const keys = new HarnessKeys({ runtimeUrl: await closedPort(), ttlSeconds: 60 });
    await expect(keys.keyFor('acme:prod')).rejects.toMatchObject({ status: 502 });
  });

  it('mints anew after a key the runtime refused is invalidated', async () => {
    const { keys } = await setUp();
    const refused = await keys.keyFor('acme:prod');
    keys.invalidate('acme:prod', refused);
    expect(await keys.keyFor('acme:prod')).toBe('secret-2');
  });

  it('revokes every unexpired key it minted, replaced ones included, and no expired one', async () => {
    const { runtime, keys, advance } = await setUp({ ttlSeconds: 100 });
    await keys.keyFor('acme:old'); // hk_1: will have expired
    advance(101);
    await keys.keyFor('acme:prod'); // hk_2: replaced below, still valid
    advance(60);
    await keys.keyFor('acme:prod'); // hk_3
    await keys.keyFor('acme:dev'); // hk_4
    expect(await keys.revokeAll()).toEqual({ revoked: 3, failed: 0 });
    expect(runtime.revoked.sort()).toEqual(['hk_2', 'hk_3', 'hk_4']);
    expect(keys.outstanding).toBe(0);
    await expect(keys.keyFor('acme:prod')).rejects.toMatchObject({ status: 503 });
  });

  it('refuses a ttl outside 1..604800 seconds', () => {
    for (const ttlSeconds of [0, 604_801, 1.5]) {
      expect(() => new HarnessKeys({ runtimeUrl: 'http://127.0.0.1:1', ttlSeconds })).toThrow(RangeError);
    }
  });
});

describe('web server stop', () => {
  it('revokes the harness keys the server minted', async () => {
    const runtime = await keyRuntime();
    cleanup.push(() => runtime.close());
    const web = await loopbackWebServer(runtime.url);
    await web.harnessKeys.keyFor('acme:prod');
    await web.harnessKeys.keyFor('acme:dev');
    expect(runtime.live.size).toBe(2);
    await web.stop();
    expect(runtime.live.size).toBe(0);
    expect(runtime.revoked.sort()).toEqual(['hk_1', 'hk_2']);
  });

  it('stops promptly when the runtime cannot revoke, leaving the keys to expire', async () => {
    const runtime = await keyRuntime();
    cleanup.push(() => runtime.close());
    const web = await loopbackWebServer(runtime.url);
    await web.harnessKeys.keyFor('acme:prod');
    await runtime.close();
    const started = performance.now();
    await web.stop();
    expect(performance.now() - started).toBeLessThan(6000);
  });
});
