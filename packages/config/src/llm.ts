/**
 * The platform's one LLM client over the configuration records (the tenant's `llm`/`llm_teacher` record, the
 * system configuration, the tenant's tier). A module of its own (`@tessera/config/llm`), so that functions
 * that only read or write records do not carry the `openai` client.
 */
import { LlmClient, type LlmEnv, type LlmSources, llmEnv } from '@tessera/llm';
import type { ConfigDeps } from './deps';
import { systemConfig, tenantConfig } from './records';
import { config } from './wiring';

export function llmSources(deps: ConfigDeps): LlmSources {
  return {
    async tenantEndpoint(tenantId, role) {
      const record = await tenantConfig(deps, tenantId, role);
      if (record.version === 0 || record.value.model === null) return undefined;
      return { ...record.value, model: record.value.model };
    },
    system: () => systemConfig(deps),
    async tier(tenantId) {
      return (await deps.tenancy.store.getTier(tenantId))?.tier;
    },
  };
}

/** The LLM client over these records. */
export function llmClientOf(deps: ConfigDeps, env: LlmEnv = llmEnv): LlmClient {
  return new LlmClient(llmSources(deps), env);
}

let client: LlmClient | undefined;

/** The platform's one LLM client: every LLM call resolves its tenant's endpoint through it. */
export function llmClient(): LlmClient {
  client ??= llmClientOf(config());
  return client;
}
