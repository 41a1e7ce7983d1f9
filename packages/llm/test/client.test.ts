import { Config } from '@tessera/api';
import { closedPortUrl, failure, openAIChat, useServers } from '@tessera/testing';
import { describe, expect, it, vi } from 'vitest';
import {
  LlmCallError,
  LlmClient,
  LlmConfigurationError,
  type LlmRole,
  type LlmSources,
  LlmUnavailableError,
  parseLlmEnv,
  resolveLlm,
} from '../src/index';

const servers = useServers();
const format = { name: 'answer', schema: { type: 'object', properties: {}, additionalProperties: false } };

/** Sources a test changes between calls, as a write or rollback of the records would. */
function sources(
  initial: { tenant?: Partial<Config.LlmEndpointConfig>; system?: unknown; tier?: string } = {},
) {
  const state = {
    tenant: initial.tenant ? Config.LlmEndpointConfig.parse(initial.tenant) : undefined,
    teacher: undefined as Config.LlmEndpointConfig | undefined,
    system: Config.SystemConfig.parse(initial.system ?? {}),
    tier: initial.tier,
    tierReads: 0,
  };
  const port: LlmSources = {
    tenantEndpoint: async (_tenant: string, role: LlmRole) => (role === 'llm' ? state.tenant : state.teacher),
    system: async () => state.system,
    tier: async () => {
      state.tierReads++;
      return state.tier;
    },
  };
  return { state, port };
}

const env = (variables: Record<string, string> = {}) => parseLlmEnv(variables);

/** A call streaming the `summary` field, to the tenant endpoint `tenant`. */
function streamedCall(
  tenant: Partial<Config.LlmEndpointConfig>,
  onText: (text: string) => void = () => undefined,
  signal?: AbortSignal,
) {
  const { port } = sources({ tenant });
  return new LlmClient(port, env()).json('a:a', {
    system: 's',
    user: 'u',
    format,
    signal,
    text: { field: 'summary', onText },
  });
}

describe('resolveLlm', () => {
  const system = Config.SystemConfig.parse({});

  it('takes the tenant record first, with its sampling settings, the provider prefix stripped', async () => {
    const settings = await resolveLlm({
      tenantId: 'acme:prod',
      tenantRecord: Config.LlmEndpointConfig.parse({
        model: 'openai/qwen2.5-7b',
        api_base: 'http://tenant-llm:8000/v1/',
        temperature: 0.3,
        max_tokens: 77,
        request_timeout: 5,
        num_retries: 3,
        seed: 11,
      }),
      system: Config.SystemConfig.parse({ llm_model: 'sys-model', base_url: 'http://sys:1/v1' }),
      env: env({ TESSERA_LLM_BASE_URL: 'http://env:1/v1', TESSERA_LLM_MODEL: 'env-model' }),
    });
    expect(settings).toEqual({
      baseURL: 'http://tenant-llm:8000/v1',
      model: 'qwen2.5-7b',
      temperature: 0.3,
      maxTokens: 77,
      requestTimeout: 5,
      numRetries: 3,
      seed: 11,
      headers: {},
      source: 'tenant',
      routed: false,
    });
  });

  it("falls back to the system configuration's llm_model and base_url, then to TESSERA_LLM_*", async () => {
    const variables = {
      TESSERA_LLM_BASE_URL: 'http://env:1/v1',
      TESSERA_LLM_MODEL: 'openai/env-model',
      TESSERA_LLM_TEMPERATURE: '0.5',
    };
    const fromSystem = await resolveLlm({
      tenantId: 'a:a',
      system: Config.SystemConfig.parse({ llm_model: 'openai/sys-model', base_url: 'http://sys:1/v1' }),
      env: env(variables),
    });
    expect(fromSystem).toMatchObject({
      source: 'system',
      baseURL: 'http://sys:1/v1',
      model: 'sys-model',
      temperature: 0.5,
    });
    const fromEnv = await resolveLlm({ tenantId: 'a:a', system, env: env(variables) });
    expect(fromEnv).toMatchObject({ source: 'environment', baseURL: 'http://env:1/v1', model: 'env-model' });
    expect(await resolveLlm({ tenantId: 'a:a', system, env: env() })).toBeUndefined();
  });

  it('a tenant record without api_base uses the system base_url', async () => {
    const settings = await resolveLlm({
      tenantId: 'a:a',
      tenantRecord: Config.LlmEndpointConfig.parse({ model: 'm' }),
      system: Config.SystemConfig.parse({ base_url: 'http://sys:1/v1' }),
      env: env(),
    });
    expect(settings).toMatchObject({ source: 'tenant', baseURL: 'http://sys:1/v1', model: 'm' });
  });

  it('sends the deployment key only to endpoints the operator configured', async () => {
    const variables = {
      TESSERA_LLM_BASE_URL: 'http://env:1/v1',
      TESSERA_LLM_MODEL: 'm',
      TESSERA_LLM_API_KEY: 'sk',
    };
    const own = await resolveLlm({
      tenantId: 'a:a',
      tenantRecord: Config.LlmEndpointConfig.parse({ model: 'm', api_base: 'http://evil:1/v1' }),
      system,
      env: env(variables),
    });
    expect(own?.apiKey).toBeUndefined();
    const same = await resolveLlm({
      tenantId: 'a:a',
      tenantRecord: Config.LlmEndpointConfig.parse({ model: 'other', api_base: 'http://env:1/v1/' }),
      system,
      env: env(variables),
    });
    expect(same?.apiKey).toBe('sk');
  });

  it('rewrites to the semantic router: its URL, routed_model, identity and tier headers winning over the caller’s', async () => {
    const routerSystem = Config.SystemConfig.parse({
      semantic_router: { enabled: true, semantic_router_url: 'http://router:8801/v1' },
    });
    const settings = await resolveLlm({
      tenantId: 'acme:prod',
      tenantRecord: Config.LlmEndpointConfig.parse({
        model: 'openai/qwen',
        api_base: 'http://t:1/v1',
        seed: 3,
      }),
      system: routerSystem,
      env: env(),
      tier: async () => 'pro',
      headers: { 'X-Authz-User-Id': 'forged', 'x-authz-anything': 'forged', 'x-request-id': 'r1' },
    });
    expect(settings).toMatchObject({
      baseURL: 'http://router:8801/v1',
      model: 'auto',
      seed: 3,
      routed: true,
      headers: { 'x-request-id': 'r1', 'x-authz-user-id': 'acme:prod', 'x-authz-user-groups': 'pro' },
    });
    expect(Object.keys(settings!.headers)).toHaveLength(3);
    const noTier = await resolveLlm({
      tenantId: 'a:a',
      system: routerSystem,
      env: env(),
      tier: async () => undefined,
    });
    expect(noTier).toMatchObject({
      source: 'router',
      model: 'auto',
      headers: { 'x-authz-user-groups': 'default' },
    });
  });

  it('lets SEMANTIC_ROUTER_ENABLED and SEMANTIC_ROUTER_URL override the system configuration', async () => {
    const off = Config.SystemConfig.parse({
      llm_model: 'm',
      base_url: 'http://sys:1/v1',
      semantic_router: { enabled: true, semantic_router_url: 'http://router:1/v1', routed_model: 'openai/r' },
    });
    expect(
      await resolveLlm({ tenantId: 'a:a', system: off, env: env({ SEMANTIC_ROUTER_ENABLED: 'false' }) }),
    ).toMatchObject({ routed: false, baseURL: 'http://sys:1/v1' });
    const moved = await resolveLlm({
      tenantId: 'a:a',
      system: off,
      env: env({ SEMANTIC_ROUTER_URL: 'http://other-router:2/v1' }),
    });
    expect(moved).toMatchObject({ routed: true, baseURL: 'http://other-router:2/v1', model: 'r' });
    const enabledByEnv = await resolveLlm({
      tenantId: 'a:a',
      system,
      env: env({ SEMANTIC_ROUTER_ENABLED: 'true' }),
    }).catch((error: Error) => error);
    expect(enabledByEnv).toBeInstanceOf(LlmConfigurationError);
    expect((enabledByEnv as Error).message).toBe(
      'semantic_router_url is required when the semantic router is enabled',
    );
  });
});

describe('LlmClient (integration: loopback OpenAI-compatible server)', () => {
  it('sends what the tenant record says, and the next call follows a changed record', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { ok: true } })));
    const { state, port } = sources({
      tenant: {
        model: 'openai/model-a',
        api_base: `${server.url}/v1`,
        temperature: 0.7,
        max_tokens: 64,
        seed: 7,
      },
    });
    const client = new LlmClient(port, env());
    expect(await client.json('acme:prod', { system: 's', user: 'u', format })).toEqual({ ok: true });
    state.tenant = Config.LlmEndpointConfig.parse({ model: 'model-b', api_base: `${server.url}/v1` });
    await client.json('acme:prod', { system: 's', user: 'u', format });
    const [first, second] = server.requests.map((request) => request.body as Record<string, unknown>);
    expect(first).toMatchObject({ model: 'model-a', temperature: 0.7, max_tokens: 64, seed: 7 });
    expect(first!.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', strict: true, schema: format.schema },
    });
    expect(second).toMatchObject({ model: 'model-b', temperature: 0.1, max_tokens: 1000 });
    expect(second).not.toHaveProperty('seed');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('goes through the semantic router with the identity and tier headers, and never forwards a client’s x-authz-*', async () => {
    const router = await servers.start(openAIChat(() => ({ content: {} })));
    const { state, port } = sources({
      tenant: { model: 'openai/qwen', api_base: 'http://unused:1/v1' },
      system: { semantic_router: { enabled: true, semantic_router_url: `${router.url}/v1` } },
      tier: 'pro',
    });
    const client = new LlmClient(port, env());
    await client.json('acme:prod', {
      system: 's',
      user: 'u',
      format,
      headers: { 'x-authz-user-groups': 'admin', 'x-authz-role': 'root', 'x-trace': 't' },
    });
    const seen = router.requests[0]!;
    expect((seen.body as { model: string }).model).toBe('auto');
    expect(seen.headers['x-authz-user-id']).toBe('acme:prod');
    expect(seen.headers['x-authz-user-groups']).toBe('pro');
    expect(seen.headers['x-authz-role']).toBeUndefined();
    expect(seen.headers['x-trace']).toBe('t');
    expect(state.tierReads).toBe(1);
  });

  it('reads no tier while the router is off', async () => {
    const server = await servers.start(openAIChat(() => ({ content: {} })));
    const { state, port } = sources({ tenant: { model: 'm', api_base: `${server.url}/v1` } });
    await new LlmClient(port, env()).json('a:a', { system: 's', user: 'u', format });
    expect(state.tierReads).toBe(0);
    expect(server.requests[0]!.headers['x-authz-user-id']).toBeUndefined();
  });

  it('makes num_retries attempts on a 5xx, then names the endpoint and the attempts', async () => {
    const server = await servers.start(() => ({
      status: 502,
      json: { error: { message: 'upstream down' } },
    }));
    const { port } = sources({ tenant: { model: 'm', api_base: `${server.url}/v1`, num_retries: 3 } });
    const error = await failure(new LlmClient(port, env()).json('a:a', { system: 's', user: 'u', format }));
    expect(error).toBeInstanceOf(LlmCallError);
    expect(error.message).toBe(
      `LLM endpoint at ${server.url}/v1 (model m) answered 502: 502 upstream down (3 attempts)`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on an endpoint that never answers within request_timeout × attempts', async () => {
    const server = await servers.start(() => 'hang');
    const { port } = sources({
      tenant: { model: 'm', api_base: `${server.url}/v1`, request_timeout: 0.3, num_retries: 2 },
    });
    const started = Date.now();
    const error = await failure(new LlmClient(port, env()).json('a:a', { system: 's', user: 'u', format }));
    const elapsed = Date.now() - started;
    expect(error.message).toBe(
      `LLM endpoint at ${server.url}/v1 (model m) did not answer within 0.3 s (2 attempts)`,
    );
    expect(elapsed).toBeLessThan(0.3 * 2 * 1000 + 400);
  });

  it('names the endpoint when it answers something that is not JSON, or is not there', async () => {
    const html = await servers.start(() => ({ status: 200, text: '<html>proxy error</html>' }));
    const { state, port } = sources({ tenant: { model: 'm', api_base: `${html.url}/v1` } });
    const client = new LlmClient(port, env());
    const notJson = await failure(client.json('a:a', { system: 's', user: 'u', format }));
    expect(notJson.message).toBe(
      `LLM endpoint at ${html.url}/v1 (model m) answered with something that is not JSON: <html>proxy error</html>`,
    );
    const closed = await closedPortUrl();
    state.tenant = Config.LlmEndpointConfig.parse({ model: 'm', api_base: `${closed}/v1` });
    const refused = await failure(client.json('a:a', { system: 's', user: 'u', format }));
    expect(refused.message).toMatch(
      new RegExp(`^LLM endpoint at ${closed}/v1 \\(model m\\) did not answer: .*ECONNREFUSED`),
    );
  });

  it('streams a call given a field: its text as the model writes it, the whole object as the answer', async () => {
    const summary = 'Late invoices carry a fee of two percent; refunds come within fourteen days.';
    const server = await servers.start(
      openAIChat(() => ({ content: { summary, sources: ['handbook.md'] }, chunkChars: 6, intervalMs: 40 })),
    );
    const deltas: { text: string; at: number }[] = [];
    const answer = await streamedCall(
      { model: 'm', api_base: `${server.url}/v1` },
      (text) => void deltas.push({ text, at: Date.now() }),
    );
    expect(answer).toEqual({ summary, sources: ['handbook.md'] });
    expect(deltas.map((delta) => delta.text).join('')).toBe(summary);
    expect(deltas.length).toBeGreaterThan(5);
    const seen = server.requests[0]!;
    expect(seen.body).toMatchObject({
      stream: true,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true } },
    });
    // The first piece of text was published while the server was still writing.
    expect(deltas[0]!.at).toBeLessThan(seen.answeredAt!);
  });

  it('closes a streamed call when its signal aborts, and says it was cancelled', async () => {
    const server = await servers.start(
      openAIChat(() => ({ content: { summary: 'word '.repeat(200) }, chunkChars: 5, intervalMs: 50 })),
    );
    const controller = new AbortController();
    const error = await failure(
      streamedCall({ model: 'm', api_base: `${server.url}/v1` }, () => controller.abort(), controller.signal),
    );
    expect(error).toBeInstanceOf(LlmCallError);
    expect(error.message).toBe(`LLM endpoint at ${server.url}/v1 (model m): the call was cancelled`);
    await vi.waitFor(() => expect(server.requests[0]!.closedEarly).toBe(true), { timeout: 10_000 });
    expect(server.requests[0]!.answeredAt).toBeUndefined();
  });

  it('gives up on a stream that stalls past request_timeout × attempts', async () => {
    const server = await servers.start(
      openAIChat(() => ({ content: { summary: 'slow words' }, chunkChars: 2, intervalMs: 5000 })),
    );
    const error = await failure(
      streamedCall({ model: 'm', api_base: `${server.url}/v1`, request_timeout: 0.5 }),
    );
    expect(error.message).toBe(
      `LLM endpoint at ${server.url}/v1 (model m) did not answer within 0.5 s (1 attempt)`,
    );
    await vi.waitFor(() => expect(server.requests[0]!.closedEarly).toBe(true), { timeout: 10_000 });
  });

  it('takes the whole answer of an endpoint that does not stream, and publishes its text at once', async () => {
    const server = await servers.start(() => ({
      status: 200,
      json: {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: '{"summary":"All at once."}' },
            finish_reason: 'stop',
          },
        ],
      },
    }));
    const deltas: string[] = [];
    const answer = await streamedCall(
      { model: 'm', api_base: `${server.url}/v1` },
      (text) => void deltas.push(text),
    );
    expect(answer).toEqual({ summary: 'All at once.' });
    expect(deltas).toEqual(['All at once.']);
    expect((server.requests[0]!.body as { stream: boolean }).stream).toBe(true);
  });

  it('refuses a streamed answer that is not JSON, as an unstreamed one', async () => {
    const server = await servers.start(
      openAIChat(() => ({ content: '{"summary":"cut sho', finish_reason: 'length' })),
    );
    const error = await failure(streamedCall({ model: 'm', api_base: `${server.url}/v1` }));
    expect(error.message).toMatch(/answered with something that is not JSON \(cut at max_tokens 1000\)/);
  });

  it('says no endpoint is configured, and takes the teacher record for the teacher role', async () => {
    const server = await servers.start(openAIChat(() => ({ content: {} })));
    const { state, port } = sources();
    const client = new LlmClient(port, env());
    const error = await failure(client.json('acme:prod', { system: 's', user: 'u', format }));
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error.message).toBe('No LLM endpoint is configured for tenant acme:prod');
    state.teacher = Config.LlmEndpointConfig.parse({
      model: 'openai/big-teacher',
      api_base: `${server.url}/v1`,
    });
    await client.json('acme:prod', { system: 's', user: 'u', format, role: 'llm_teacher' });
    expect((server.requests[0]!.body as { model: string }).model).toBe('big-teacher');
    const tenant = client.forTenant('acme:prod', 'llm_teacher');
    await tenant.json('s', 'u', format);
    expect(tenant.name).toBe('llm:big-teacher');
    expect(tenant.description).toBe(`LLM endpoint at ${server.url}/v1 (model big-teacher)`);
  });
});
