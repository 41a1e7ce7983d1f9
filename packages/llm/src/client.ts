/**
 * The one LLM client of the platform. Every call resolves the tenant's endpoint afresh from the configuration
 * records (which their store caches per process), so a write or rollback of the tenant's `llm` record changes
 * the very next call; endpoints with the same settings share one `openai` client.
 */
import type { Config } from '@tessera/api';
import { type Telemetry, telemetry } from '@tessera/telemetry';
import {
  type ChatTurn,
  type JsonCallOptions,
  type JsonLlm,
  type JsonSchemaFormat,
  LlmEndpoint,
} from './endpoint';
import { type LlmEnv, llmEnv } from './env';
import { type LlmSettings, resolveLlm } from './resolve';

export type LlmRole = 'llm' | 'llm_teacher';

/** Where the client reads what resolution needs: the configuration records and the tenant's tier. */
export interface LlmSources {
  /** The tenant's record of `role`, when one was written (undefined at version 0). */
  tenantEndpoint(tenantId: string, role: LlmRole): Promise<Config.LlmEndpointConfig | undefined>;
  system(): Promise<Config.SystemConfig>;
  /** The tenant's stored router tier; undefined when none was set. */
  tier(tenantId: string): Promise<string | undefined>;
}

/** No endpoint is configured for the tenant (nor for the system, nor in the environment). */
export class LlmUnavailableError extends Error {
  override name = 'LlmUnavailableError';

  constructor(readonly tenantId: string) {
    super(`No LLM endpoint is configured for tenant ${tenantId}`);
  }
}

/** Clients kept at most; beyond, the oldest is dropped (a tenant's next call builds it again). */
const MAX_CLIENTS = 256;

export class LlmClient {
  private readonly endpoints = new Map<string, LlmEndpoint>();

  constructor(
    private readonly sources: LlmSources,
    private readonly env: LlmEnv = llmEnv,
    private readonly tracing: Telemetry = telemetry(),
  ) {}

  /** The settings a call of the tenant would use now; undefined when nothing configures an endpoint. */
  async resolve(
    tenantId: string,
    options: { role?: LlmRole; headers?: Record<string, string> } = {},
  ): Promise<LlmSettings | undefined> {
    const role = options.role ?? 'llm';
    const [tenantRecord, system] = await Promise.all([
      this.sources.tenantEndpoint(tenantId, role),
      this.sources.system(),
    ]);
    return resolveLlm({
      tenantId,
      tenantRecord,
      system,
      env: this.env,
      tier: () => this.sources.tier(tenantId),
      headers: options.headers,
    });
  }

  /** The endpoint of `settings`, built once per distinct settings. */
  endpoint(settings: LlmSettings): LlmEndpoint {
    const key = JSON.stringify([
      settings.baseURL,
      settings.model,
      settings.apiKey ?? '',
      settings.temperature,
      settings.maxTokens,
      settings.requestTimeout,
      settings.numRetries,
      settings.seed ?? null,
      Object.entries(settings.headers).sort(([a], [b]) => a.localeCompare(b)),
    ]);
    let endpoint = this.endpoints.get(key);
    if (endpoint) {
      // Most recently used last, so the oldest goes first.
      this.endpoints.delete(key);
    } else {
      endpoint = new LlmEndpoint(settings);
    }
    this.endpoints.set(key, endpoint);
    if (this.endpoints.size > MAX_CLIENTS) this.endpoints.delete(this.endpoints.keys().next().value!);
    return endpoint;
  }

  /**
   * A JSON call for the tenant (streamed when `text` is given, which then gets a field's text as it arrives);
   * throws `LlmUnavailableError` when no endpoint is configured.
   */
  async json(
    tenantId: string,
    request: {
      system: string;
      user: string;
      format: JsonSchemaFormat;
      role?: LlmRole;
      headers?: Record<string, string>;
    } & JsonCallOptions,
  ): Promise<unknown> {
    const settings = await this.resolve(tenantId, request);
    if (!settings) throw new LlmUnavailableError(tenantId);
    const { signal, text } = request;
    return this.call(tenantId, settings, request.system, request.user, request.format, { signal, text });
  }

  /** One call of `settings`' endpoint inside an LLM span of the tenant. */
  call(
    tenantId: string,
    settings: LlmSettings,
    system: string,
    user: string,
    format: JsonSchemaFormat,
    options: JsonCallOptions = {},
  ): Promise<unknown> {
    return this.tracing.span(
      tenantId,
      'llm.call',
      {
        kind: 'client',
        attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': settings.model },
      },
      async (scope) => {
        scope.detail({
          'llm.base_url': settings.baseURL,
          'llm.response_format': format.name,
          'llm.streamed': options.text !== undefined,
          'llm.invocation_parameters': JSON.stringify({
            temperature: settings.temperature,
            max_tokens: settings.maxTokens,
            seed: settings.seed ?? null,
          }),
        });
        scope.verbose({ 'input.value': user, 'llm.system': system });
        const answer = await this.endpoint(settings).json(system, user, format, options);
        scope.verbose({ 'output.value': JSON.stringify(answer) });
        return answer;
      },
    );
  }

  /**
   * A free-form completion for the tenant under the caller's response format, forwarded intact (chat's
   * `response_format`); throws `LlmUnavailableError` when no endpoint is configured.
   */
  async complete(
    tenantId: string,
    messages: ChatTurn[],
    responseFormat?: Record<string, unknown>,
  ): Promise<string> {
    const settings = await this.resolve(tenantId);
    if (!settings) throw new LlmUnavailableError(tenantId);
    return this.tracing.span(
      tenantId,
      'llm.call',
      {
        kind: 'client',
        attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': settings.model },
      },
      async (scope) => {
        scope.detail({
          'llm.base_url': settings.baseURL,
          'llm.response_format': String(responseFormat?.type ?? 'text'),
        });
        const answer = await this.endpoint(settings).complete(messages, responseFormat);
        scope.verbose({ 'output.value': answer });
        return answer;
      },
    );
  }

  /** The tenant's calls as a `JsonLlm` (for the extractors), resolving the endpoint on every call. */
  forTenant(tenantId: string, role: LlmRole = 'llm'): TenantLlm {
    return new TenantLlm(this, tenantId, role);
  }
}

export class TenantLlm implements JsonLlm {
  private last?: LlmSettings;

  constructor(
    private readonly client: LlmClient,
    readonly tenantId: string,
    readonly role: LlmRole,
  ) {}

  /** The settings the next call would use (and remembers them for names and messages). */
  async settings(): Promise<LlmSettings | undefined> {
    this.last = await this.client.resolve(this.tenantId, { role: this.role });
    return this.last;
  }

  get name(): string {
    return `llm:${this.last?.model ?? 'unconfigured'}`;
  }

  get description(): string {
    return this.last
      ? `LLM endpoint at ${this.last.baseURL} (model ${this.last.model})`
      : `LLM endpoint of tenant ${this.tenantId}`;
  }

  async json(
    system: string,
    user: string,
    format: JsonSchemaFormat,
    options?: JsonCallOptions,
  ): Promise<unknown> {
    const settings = await this.settings();
    if (!settings) throw new LlmUnavailableError(this.tenantId);
    return this.client.call(this.tenantId, settings, system, user, format, options);
  }
}
