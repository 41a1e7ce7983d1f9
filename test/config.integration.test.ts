/**
 * Configuration records through the local runtime: the routes with their defaults, versions, history and
 * rollbacks; bad input; a second process sharing the first one's emulators; and the LLM calls of the graph
 * pass following the tenant's record, the system configuration and the semantic router, recorded by an
 * OpenAI-compatible server on loopback.
 */
import { openAIChat, type SeenRequest, startServer, type TestServer } from '@tessera/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
let llm: TestServer;
let router: TestServer;

/** The chat requests a server saw: the model, and the router's headers. */
const chats = (server: TestServer) =>
  server.requests
    .filter((request) => request.url === '/v1/chat/completions')
    .map((request: SeenRequest) => ({
      model: (request.body as { model: string }).model,
      user: request.headers['x-authz-user-id'],
      tier: request.headers['x-authz-user-groups'],
      extra: Object.keys(request.headers).filter(
        (name) => name.startsWith('x-authz-') && !/user-(id|groups)$/.test(name),
      ),
    }));

const record = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  api_base: `${llm.url}/v1`,
  ...extra,
});

beforeAll(async () => {
  llm = await startServer(openAIChat(() => ({ content: { claims: [] } })));
  router = await startServer(openAIChat(() => ({ content: { claims: [] } })));
  rt = await spawnRuntime();
  for (const tenant of ['acme:prod', 'rival:prod']) {
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant, base_schemas: ['wiki'] })).status,
    ).toBe(201);
  }
});

afterAll(async () => {
  await rt?.stop();
  await llm?.close();
  await router?.close();
});

describe('configuration records through the runtime (integration)', () => {
  it('answers the defaults at version 0, then each write as a new version with its history', async () => {
    for (const kind of ['llm', 'llm_teacher', 'routing', 'telemetry', 'backend']) {
      const answer = await call(rt.url, 'GET', `/admin/tenants/rival:prod/config/${kind}`);
      expect(answer.status, kind).toBe(200);
      expect(answer.body).toMatchObject({ kind, tenant_id: 'rival:prod', version: 0, created_at: null });
    }
    expect((await call(rt.url, 'GET', '/admin/tenants/rival/config/llm')).status).toBe(404);
    const written = await call(rt.url, 'PUT', '/admin/tenants/rival:prod/config/routing?created_by=alice', {
      fast_path_confidence_threshold: 0.8,
    });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({
      kind: 'routing',
      tenant_id: 'rival:prod',
      version: 1,
      value: {
        fast_path_confidence_threshold: 0.8,
        slow_path_confidence_threshold: 0.6,
        routing_mode: 'tiered',
      },
    });
    await call(rt.url, 'PUT', '/admin/tenants/rival:prod/config/routing', { enable_fallback: false });
    const rolled = await call(rt.url, 'POST', '/admin/tenants/rival:prod/config/routing/rollback', {
      version: 1,
    });
    expect(rolled.body).toMatchObject({
      version: 3,
      rolled_back_from: 1,
      value: { fast_path_confidence_threshold: 0.8 },
    });
    expect((await call(rt.url, 'GET', '/admin/tenants/rival:prod/config/routing')).body).toMatchObject({
      version: 3,
      rolled_back_from: 1,
      value: { enable_fallback: true },
    });
    const history = await call(rt.url, 'GET', '/admin/tenants/rival:prod/config/routing/history');
    expect(
      history.body.versions.map((v: { version: number; created_by: string }) => [v.version, v.created_by]),
    ).toEqual([
      [3, 'api'],
      [2, 'api'],
      [1, 'alice'],
    ]);
    expect(
      (await call(rt.url, 'GET', '/admin/tenants/rival:prod/config/routing/history?limit=1')).body.versions,
    ).toHaveLength(1);
  });

  it('keeps the system configuration global, and refuses a router enabled without its URL', async () => {
    expect((await call(rt.url, 'GET', '/admin/config/system')).body).toMatchObject({
      kind: 'system',
      tenant_id: null,
      version: 0,
      value: { semantic_router: { enabled: false, routed_model: 'openai/auto' }, search_backend: 'lancedb' },
    });
    const refused = await call(rt.url, 'PUT', '/admin/config/system', { semantic_router: { enabled: true } });
    expect(refused).toMatchObject({
      status: 400,
      body: { detail: 'semantic_router_url is required when the semantic router is enabled' },
    });
    expect((await call(rt.url, 'GET', '/admin/config/system/history')).body).toEqual({ versions: [] });
  });

  it('refuses bad input with the spec’s shapes and changes nothing', async () => {
    const put = (path: string, body: unknown) => call(rt.url, 'PUT', path, body);
    const llmPath = '/admin/tenants/acme:prod/config/llm';
    expect((await put(llmPath, {})).body.detail).toEqual([
      { type: 'missing', loc: ['body', 'model'], msg: 'Field required', input: {} },
    ]);
    expect((await put(llmPath, { model: 'm', temprature: 0.5 })).body.detail[0]).toMatchObject({
      type: 'extra_forbidden',
      loc: ['body', 'temprature'],
    });
    expect((await put(llmPath, { model: 5 })).body.detail[0]).toMatchObject({
      type: 'string_type',
      loc: ['body', 'model'],
    });
    expect((await put(llmPath, { model: 'm', num_retries: 0 })).status).toBe(422);
    expect((await put(llmPath, { model: 'm', request_timeout: 'slow' })).status).toBe(422);
    expect((await put(llmPath, { model: 'm', api_base: 'ftp://x' })).status).toBe(422);
    expect((await put(llmPath, { model: 'x'.repeat(301) })).status).toBe(422);
    expect((await put(llmPath, [])).status).toBe(422);
    expect((await put('/admin/tenants/acme:prod/config/telemetry', { level: 'LOUD' })).status).toBe(422);
    expect((await put('/admin/tenants/acme:prod/config/secrets', {})).body.detail[0]).toMatchObject({
      type: 'enum',
      loc: ['path', 'kind'],
    });
    expect(
      (await put('/admin/config/system', { llm_model: 'm', agents: { a: { enabled: 'yes' } } })).status,
    ).toBe(422);
    expect((await put('/admin/config/system', { unknown: 1 })).status).toBe(422);
    expect((await put('/admin/tenants/a-b/config/llm', { model: 'm' })).status).toBe(400);
    expect(await put('/admin/tenants/ghost/config/llm', { model: 'm' })).toMatchObject({
      status: 404,
      body: { detail: "Tenant 'ghost:ghost' not registered." },
    });
    const rollback = (path: string, body: unknown) => call(rt.url, 'POST', path, body);
    expect(await rollback('/admin/tenants/acme:prod/config/backend/rollback', { version: 1 })).toMatchObject({
      status: 404,
      body: { detail: "Configuration 'backend' of tenant 'acme:prod' has no version 1" },
    });
    expect((await rollback('/admin/config/system/rollback', { version: 99 })).status).toBe(404);
    expect((await rollback('/admin/config/system/rollback', { version: 0 })).status).toBe(422);
    expect((await rollback('/admin/config/system/rollback', { version: 1.5 })).status).toBe(422);
    expect((await rollback('/admin/config/system/rollback', {})).status).toBe(422);
    expect((await rollback('/admin/config/system/rollback', { version: 1, extra: true })).status).toBe(422);
    expect((await call(rt.url, 'GET', '/admin/config/system/history?limit=0')).status).toBe(422);
    expect((await call(rt.url, 'GET', llmPath)).body.version).toBe(0);
    expect((await call(rt.url, 'GET', '/admin/config/system')).body.version).toBe(0);
  });

  it("sends the graph pass's LLM calls where the tenant's record says; a rollback changes the next call", async () => {
    const ingest = async (name: string) => {
      const { body } = await upload(rt.url, { tenant_id: 'acme:prod', wait: 'true' }, [
        { name, content: 'Marie Curie was born in Warsaw. She moved to Paris.' },
      ]);
      expect(body.status).toBe('complete');
      return body;
    };
    expect((await ingest('none.txt')).claims).toMatch(/claims skipped/);
    await call(
      rt.url,
      'PUT',
      '/admin/tenants/acme:prod/config/llm',
      record('openai/model-a', { temperature: 0.3, seed: 5 }),
    );
    await call(rt.url, 'PUT', '/admin/tenants/acme:prod/config/llm', record('openai/model-b'));
    expect((await ingest('b.txt')).claims).toMatch(/^claims extracted/);
    await call(rt.url, 'POST', '/admin/tenants/acme:prod/config/llm/rollback', { version: 1 });
    await ingest('a.txt');
    const seen = llm.requests.filter((request) => request.url === '/v1/chat/completions');
    expect(seen.map((request) => (request.body as { model: string }).model)).toEqual(['model-b', 'model-a']);
    expect(seen[1]!.body).toMatchObject({ temperature: 0.3, seed: 5 });
  });

  it('goes through the semantic router with the tenant and its tier, never a client’s x-authz-* headers', async () => {
    const system = await call(rt.url, 'PUT', '/admin/config/system', {
      semantic_router: {
        enabled: true,
        semantic_router_url: `${router.url}/v1`,
        routed_model: 'openai/auto',
      },
    });
    expect(system.body.version).toBe(1);
    const form = new FormData();
    form.set('tenant_id', 'acme:prod');
    form.set('wait', 'true');
    form.append('file', new Blob(['Ada Lovelace wrote notes in London.']), 'routed.txt');
    const response = await fetch(`${rt.url}/ingestion/upload`, {
      method: 'POST',
      body: form,
      headers: { 'x-authz-user-id': 'forged', 'x-authz-user-groups': 'admin', 'x-authz-role': 'root' },
    });
    expect(response.status).toBe(200);
    expect(chats(router)).toEqual([{ model: 'auto', user: 'acme:prod', tier: 'default', extra: [] }]);
    await call(rt.url, 'PUT', '/admin/tenants/acme:prod/tier', { tier: 'pro' });
    await upload(rt.url, { tenant_id: 'acme:prod', wait: 'true' }, [
      { name: 'tiered.txt', content: 'Grace Hopper wrote code.' },
    ]);
    expect(chats(router).at(-1)).toEqual({ model: 'auto', user: 'acme:prod', tier: 'pro', extra: [] });
    // Off again: the calls go back to the tenant's own endpoint.
    expect((await call(rt.url, 'PUT', '/admin/config/system', {})).body.version).toBe(2);
    const before = llm.requests.length;
    await upload(rt.url, { tenant_id: 'acme:prod', wait: 'true' }, [
      { name: 'direct.txt', content: 'Alan Turing wrote papers.' },
    ]);
    expect(llm.requests.length).toBeGreaterThan(before);
  });

  it("reports an endpoint that fails in the job's result, naming it, within request_timeout × attempts", async () => {
    const hanging = await startServer(() => 'hang');
    try {
      await call(rt.url, 'PUT', '/admin/tenants/rival:prod/config/llm', {
        model: 'slow',
        api_base: `${hanging.url}/v1`,
        request_timeout: 0.5,
        num_retries: 2,
      });
      const started = Date.now();
      const { body } = await upload(rt.url, { tenant_id: 'rival:prod', wait: 'true' }, [
        { name: 'slow.txt', content: 'Ada Lovelace wrote notes.' },
      ]);
      expect(body).toMatchObject({ status: 'complete', documents_fed: 1 });
      expect(body.claims).toContain(
        `LLM endpoint at ${hanging.url}/v1 (model slow) did not answer within 0.5 s (2 attempts)`,
      );
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await hanging.close();
    }
  });
});

describe('the cache across processes (integration)', () => {
  let second: RuntimeProcess;
  beforeAll(async () => {
    second = await spawnRuntime({
      dataDir: rt.dataDir,
      env: { AWS_ENDPOINT_URL: rt.emulatorUrl!, TESSERA_QUEUE_WORKERS: 'off', TESSERA_SCHEDULER: 'off' },
    });
  });
  afterAll(async () => {
    await second?.stop();
  });

  it('shows a rollback at once in the process that wrote it, and within seconds in another', async () => {
    const path = '/admin/tenants/rival:prod/config/backend';
    await call(rt.url, 'PUT', path, { profiles: ['a'] });
    await call(rt.url, 'PUT', path, { profiles: ['b'] });
    expect((await call(second.url, 'GET', path)).body.value.profiles).toEqual(['b']);
    const rolled = await call(rt.url, 'POST', `${path}/rollback`, { version: 1 });
    expect((await call(rt.url, 'GET', path)).body).toMatchObject({
      version: rolled.body.version,
      value: { profiles: ['a'] },
    });
    const deadline = Date.now() + 10_000;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      seen = (await call(second.url, 'GET', path)).body.value.profiles;
      if (seen[0] === 'a') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toEqual(['a']);
  });

  it('gives each of N concurrent writers from two processes its own version', async () => {
    const path = '/admin/tenants/acme:prod/config/telemetry';
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(i % 2 ? second.url : rt.url, 'PUT', `${path}?created_by=w${i}`, { max_cached_tenants: i + 1 }),
      ),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(answers.map((answer) => answer.body.version).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 16 }, (_, i) => i + 1),
    );
    const history = (await call(rt.url, 'GET', `${path}/history`)).body.versions;
    expect(history).toHaveLength(16);
    expect(new Set(history.map((v: { created_by: string }) => v.created_by)).size).toBe(16);
  });
});
