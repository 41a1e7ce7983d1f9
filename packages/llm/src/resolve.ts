/**
 * Where a tenant's LLM calls go (clarifications, "Configuration records"): the tenant's `llm` record, else the
 * system configuration's `llm_model` and `base_url`, else `TESSERA_LLM_*`; then the semantic router rewrite
 * when it is enabled. Pure: the caller reads the records.
 */
import type { Config } from '@tessera/api';
import { isAuthzHeader } from './endpoint';
import type { LlmEnv } from './env';

/** The settings one call is made with. */
export interface LlmSettings {
  baseURL: string;
  /** As sent: the `openai/` provider prefix stripped. */
  model: string;
  apiKey?: string;
  temperature: number;
  maxTokens: number;
  /** Seconds per attempt. */
  requestTimeout: number;
  /** Total attempts. */
  numRetries: number;
  seed?: number;
  contextWindow?: number;
  headers: Record<string, string>;
  /** Which level gave the endpoint. */
  source: 'tenant' | 'system' | 'environment' | 'router';
  /** Whether the semantic router rewrote it. */
  routed: boolean;
}

export interface LlmResolutionInput {
  /** Canonical tenant id: the router's user-id header carries it. */
  tenantId: string;
  /** The tenant's record of the role, when one was written. */
  tenantRecord?: Config.LlmEndpointConfig;
  system: Config.SystemConfig;
  env: LlmEnv;
  /** The tenant's stored router tier, when it has one; read only when routing is on. */
  tier?: () => Promise<string | undefined>;
  /** Headers the caller adds to its requests; `x-authz-*` ones are dropped. */
  headers?: Record<string, string>;
}

/** Resolution failed for a reason the operator must fix (the router enabled without its URL). */
export class LlmConfigurationError extends Error {}

/** The `openai/` provider prefix is not sent to the endpoint. */
export const stripProvider = (model: string) => model.replace(/^openai\//, '');

const normalized = (url: string) => url.replace(/\/+$/, '');

/** Whether the semantic router is on and where it is: the environment overrides the system configuration. */
export function semanticRouter(system: Config.SystemConfig, env: LlmEnv) {
  const block = system.semantic_router;
  return {
    ...block,
    enabled: env.semanticRouterEnabled ?? block.enabled,
    semantic_router_url: env.semanticRouterUrl ?? block.semantic_router_url,
  };
}

/** Sets `name` on `headers`, replacing a header of the same name in any case. */
function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const existing of Object.keys(headers)) {
    if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
  }
  headers[name] = value;
}

/** The endpoint of a tenant's calls, or undefined when nothing configures one (LLM steps are then skipped). */
export async function resolveLlm(input: LlmResolutionInput): Promise<LlmSettings | undefined> {
  const { env, system, tenantRecord } = input;
  const headers = Object.fromEntries(
    Object.entries(input.headers ?? {}).filter(([name]) => !isAuthzHeader(name)),
  );
  const defaults = {
    temperature: env.llmTemperature,
    maxTokens: env.llmMaxTokens,
    requestTimeout: env.llmRequestTimeout,
    numRetries: env.llmNumRetries,
    seed: env.llmSeed,
    contextWindow: undefined as number | undefined,
  };
  let endpoint: { model?: string; baseURL?: string; source: LlmSettings['source'] } & typeof defaults;
  if (tenantRecord) {
    endpoint = {
      source: 'tenant',
      model: tenantRecord.model,
      baseURL: tenantRecord.api_base ?? system.base_url ?? env.llmBaseUrl,
      temperature: tenantRecord.temperature,
      maxTokens: tenantRecord.max_tokens,
      requestTimeout: tenantRecord.request_timeout,
      numRetries: tenantRecord.num_retries,
      seed: tenantRecord.seed ?? undefined,
      contextWindow: tenantRecord.context_window ?? undefined,
    };
  } else if (system.llm_model || system.base_url) {
    endpoint = {
      ...defaults,
      source: 'system',
      model: system.llm_model ?? env.llmModel,
      baseURL: system.base_url ?? env.llmBaseUrl,
    };
  } else {
    endpoint = { ...defaults, source: 'environment', model: env.llmModel, baseURL: env.llmBaseUrl };
  }

  const router = semanticRouter(system, env);
  let routed = false;
  if (router.enabled) {
    if (!router.semantic_router_url) {
      throw new LlmConfigurationError('semantic_router_url is required when the semantic router is enabled');
    }
    endpoint.baseURL = router.semantic_router_url;
    endpoint.model = router.routed_model;
    if (!tenantRecord && !system.llm_model && !env.llmModel) endpoint.source = 'router';
    setHeader(headers, router.user_id_header, input.tenantId);
    setHeader(headers, router.tier_header, (await input.tier?.()) ?? 'default');
    routed = true;
  }
  if (!endpoint.baseURL || !endpoint.model) return undefined;

  // The deployment's key goes only to endpoints the operator configured, never to a tenant's own api_base.
  const trusted = [env.llmBaseUrl, system.base_url, routed ? router.semantic_router_url : undefined]
    .filter((url): url is string => Boolean(url))
    .map(normalized);
  const apiKey = env.llmApiKey && trusted.includes(normalized(endpoint.baseURL)) ? env.llmApiKey : undefined;

  return {
    baseURL: normalized(endpoint.baseURL),
    model: stripProvider(endpoint.model),
    ...(apiKey ? { apiKey } : {}),
    temperature: endpoint.temperature,
    maxTokens: endpoint.maxTokens,
    requestTimeout: endpoint.requestTimeout,
    numRetries: endpoint.numRetries,
    ...(endpoint.seed === undefined ? {} : { seed: endpoint.seed }),
    ...(endpoint.contextWindow === undefined ? {} : { contextWindow: endpoint.contextWindow }),
    headers,
    source: endpoint.source,
    routed,
  };
}
