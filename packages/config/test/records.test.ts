import { Config } from '@tessera/api';
import { KeyedSerializer } from '@tessera/core';
import { createTenant } from '@tessera/tenancy';
import { refusal } from '@tessera/testing/contracts';
import { type FakeDomains, fakeDomains } from '@tessera/testing/fakes';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigCache,
  type ConfigDeps,
  getSystemConfig,
  getTenantConfig,
  purgeTenantConfig,
  putSystemConfig,
  putTenantConfig,
  readConfig,
  rollbackSystemConfig,
  rollbackTenantConfig,
  systemConfigHistory,
  tenantConfig,
  tenantConfigHistory,
} from '../src/index';

let h: FakeDomains;
beforeEach(async () => {
  h = fakeDomains();
  await createTenant(h.tenancy, { tenant_id: 'acme:prod', created_by: 'seed', base_schemas: ['wiki'] });
});

/** Another process over the same store: its own cache and write queue. */
const otherProcess = (deps: ConfigDeps): ConfigDeps => ({
  ...deps,
  cache: new ConfigCache(2000, h.clock.now),
  writes: new KeyedSerializer(),
});

/** The model of an LLM record's value (the route answers type it as any kind's). */
const modelOf = (entry: { value: unknown }) => (entry.value as { model: string | null }).model;

const llm = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  api_base: null,
  temperature: 0.1,
  max_tokens: 1000,
  context_window: null,
  request_timeout: 120,
  num_retries: 1,
  seed: null,
  ...extra,
});

describe('configuration records', () => {
  it('answers the defaults of document 2 at version 0 for every kind never written', async () => {
    expect(await getTenantConfig(h.config, 'acme:prod', 'llm')).toEqual({
      kind: 'llm',
      tenant_id: 'acme:prod',
      version: 0,
      value: llm(null as unknown as string),
      created_at: null,
    });
    const routing = (await getTenantConfig(h.config, 'acme:prod', 'routing')).value;
    expect(routing).toMatchObject({
      routing_mode: 'tiered',
      enable_fast_path: true,
      enable_slow_path: true,
      enable_fallback: true,
      fast_path_confidence_threshold: 0.7,
      slow_path_confidence_threshold: 0.6,
    });
    expect((await getTenantConfig(h.config, 'acme:prod', 'telemetry')).value).toMatchObject({
      max_cached_tenants: 100,
      tenant_cache_ttl_seconds: 3600,
      synchronous_export: false,
      level: 'BASIC',
      tenant_project_template: 'tessera-{tenant_id}',
    });
    expect((await getTenantConfig(h.config, 'acme:prod', 'backend')).value).toEqual({
      url: null,
      port: null,
      profiles: [],
    });
    expect(await getSystemConfig(h.config)).toMatchObject({
      kind: 'system',
      tenant_id: null,
      version: 0,
      value: {
        llm_model: null,
        base_url: null,
        semantic_router: {
          enabled: false,
          semantic_router_url: '',
          tier_header: 'x-authz-user-groups',
          user_id_header: 'x-authz-user-id',
          routed_model: 'openai/auto',
        },
      },
    });
  });

  it('writes versions from 1, keeps every one newest first, and reads the newest', async () => {
    h.clock.offset = 1000;
    const first = await putTenantConfig(h.config, 'acme:prod', 'llm', llm('openai/a'), 'alice');
    expect(first).toEqual({
      kind: 'llm',
      tenant_id: 'acme:prod',
      version: 1,
      value: llm('openai/a'),
      created_at: first.created_at,
    });
    expect(first.created_at).toBeGreaterThan(Date.now());
    await putTenantConfig(h.config, 'acme:prod', 'llm', llm('b', { temperature: 0.9 }), 'bob');
    expect((await tenantConfig(h.config, 'acme:prod', 'llm')).value.model).toBe('b');
    const history = await tenantConfigHistory(h.config, 'acme:prod', 'llm', 100);
    expect(history.versions.map((v) => [v.version, modelOf(v), v.created_by])).toEqual([
      [2, 'b', 'bob'],
      [1, 'openai/a', 'alice'],
    ]);
    expect((await tenantConfigHistory(h.config, 'acme:prod', 'llm', 1)).versions).toHaveLength(1);
  });

  it('rolls back by writing a new version with the old value and rolled_back_from, never rewriting history', async () => {
    await putTenantConfig(h.config, 'acme:prod', 'llm', llm('a'), 'alice');
    await putTenantConfig(h.config, 'acme:prod', 'llm', llm('b'), 'alice');
    const rolled = await rollbackTenantConfig(h.config, 'acme:prod', 'llm', 1, 'carol');
    expect(rolled).toMatchObject({ version: 3, rolled_back_from: 1, value: { model: 'a' } });
    expect(await getTenantConfig(h.config, 'acme:prod', 'llm')).toMatchObject({
      version: 3,
      rolled_back_from: 1,
    });
    const history = (await tenantConfigHistory(h.config, 'acme:prod', 'llm', 10)).versions;
    expect(history.map((v) => [v.version, modelOf(v), v.rolled_back_from])).toEqual([
      [3, 'a', 1],
      [2, 'b', undefined],
      [1, 'a', undefined],
    ]);
    expect(history[0]!.created_by).toBe('carol');
  });

  it('refuses a rollback to a version that does not exist, or of a record never written (404)', async () => {
    await putTenantConfig(h.config, 'acme:prod', 'routing', { routing_mode: 'tiered' }, 'a');
    expect(await refusal(rollbackTenantConfig(h.config, 'acme:prod', 'routing', 2, 'a'))).toEqual({
      status: 404,
      detail: "Configuration 'routing' of tenant 'acme:prod' has no version 2",
    });
    expect((await refusal(rollbackTenantConfig(h.config, 'acme:prod', 'telemetry', 1, 'a'))).status).toBe(
      404,
    );
    expect(await refusal(rollbackSystemConfig(h.config, 1, 'a'))).toEqual({
      status: 404,
      detail: 'System configuration has no version 1',
    });
    expect((await tenantConfigHistory(h.config, 'acme:prod', 'telemetry', 10)).versions).toEqual([]);
  });

  it('refuses a system configuration whose router is enabled without its URL, storing nothing', async () => {
    const value = (semantic_router: Record<string, unknown>) =>
      Config.SystemConfig.parse({ semantic_router });
    expect(await refusal(putSystemConfig(h.config, value({ enabled: true }), 'a'))).toEqual({
      status: 400,
      detail: 'semantic_router_url is required when the semantic router is enabled',
    });
    expect((await systemConfigHistory(h.config, 10)).versions).toEqual([]);
    const written = await putSystemConfig(
      h.config,
      value({ enabled: true, semantic_router_url: 'http://router:8801/v1' }),
      'a',
    );
    expect(written.version).toBe(1);
  });

  it('guards the tenant routes: a malformed id 400, an unregistered tenant 404', async () => {
    expect((await refusal(getTenantConfig(h.config, 'a-b', 'llm'))).status).toBe(400);
    expect(await refusal(putTenantConfig(h.config, 'ghost', 'llm', llm('m'), 'a'))).toEqual({
      status: 404,
      detail: "Tenant 'ghost:ghost' not registered.",
    });
  });

  it('shows a write or rollback at once in its process, and in another process once its cache time passed', async () => {
    const other = otherProcess(h.config);
    await putTenantConfig(h.config, 'acme:prod', 'llm', llm('a'), 'a');
    expect((await tenantConfig(other, 'acme:prod', 'llm')).value.model).toBe('a');
    await putTenantConfig(h.config, 'acme:prod', 'llm', llm('b'), 'a');
    expect((await tenantConfig(h.config, 'acme:prod', 'llm')).value.model).toBe('b');
    // The other process answers from its cache until the cache time passes.
    expect((await tenantConfig(other, 'acme:prod', 'llm')).value.model).toBe('a');
    h.clock.offset += 2001;
    expect((await tenantConfig(other, 'acme:prod', 'llm')).value.model).toBe('b');
    await rollbackTenantConfig(h.config, 'acme:prod', 'llm', 1, 'a');
    expect((await tenantConfig(h.config, 'acme:prod', 'llm')).value.model).toBe('a');
    // A write through the other process is seen by it at once, whatever its cache held.
    await putTenantConfig(other, 'acme:prod', 'llm', llm('c'), 'a');
    expect((await tenantConfig(other, 'acme:prod', 'llm')).value.model).toBe('c');
  });

  it('reads a cached record with one store read for concurrent misses', async () => {
    await putTenantConfig(otherProcess(h.config), 'acme:prod', 'telemetry', {}, 'a');
    let reads = 0;
    const latest = h.config.store.latest.bind(h.config.store);
    h.config.store.latest = (...args) => {
      reads++;
      return latest(...args);
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => readConfig(h.config, 'acme:prod', 'telemetry')),
    );
    expect(new Set(answers.map((a) => a.version))).toEqual(new Set([1]));
    expect(reads).toBe(1);
    await readConfig(h.config, 'acme:prod', 'telemetry');
    expect(reads).toBe(1);
  });

  it('gives each of N concurrent writers from two processes its own version, none lost', async () => {
    const processes = [h.config, otherProcess(h.config)];
    const writes = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        putTenantConfig(processes[i % 2]!, 'acme:prod', 'backend', { profiles: [`p${i}`] }, `w${i}`),
      ),
    );
    expect(writes.map((w) => w.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 24 }, (_, i) => i + 1),
    );
    const history = (await tenantConfigHistory(h.config, 'acme:prod', 'backend', 100)).versions;
    expect(history).toHaveLength(24);
    expect(new Set(history.map((v) => v.created_by)).size).toBe(24);
  });

  it("purges a deleted tenant's records", async () => {
    await putTenantConfig(h.config, 'acme:prod', 'llm', llm('a'), 'a');
    await putTenantConfig(h.config, 'acme:prod', 'routing', {}, 'a');
    expect(await purgeTenantConfig(h.config, 'acme:prod')).toBe(2);
    expect((await tenantConfig(h.config, 'acme:prod', 'llm')).version).toBe(0);
  });
});

describe('ConfigCache', () => {
  it('keeps at most its bound of records, dropping the least recently stored', async () => {
    const cache = new ConfigCache(60_000, Date.now, 2);
    const head = (version: number) => ({ version, value: {}, created_at: 1, created_by: 'a' });
    cache.remember('a', head(1));
    cache.remember('b', head(1));
    cache.remember('a', head(2));
    cache.remember('c', head(1));
    let loads = 0;
    const load = async () => {
      loads++;
      return head(9);
    };
    expect((await cache.read('a', load))?.version).toBe(2);
    expect((await cache.read('c', load))?.version).toBe(1);
    expect((await cache.read('b', load))?.version).toBe(9);
    expect(loads).toBe(1);
  });
});
