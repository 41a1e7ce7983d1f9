/**
 * The one LLM client: every LLM call of the platform (claims, LLM entities, agents, optimization) goes
 * through `LlmClient`, which resolves the tenant's endpoint and applies the semantic router, or through an
 * `LlmEndpoint` built from fixed settings.
 */
export { LlmClient, type LlmRole, type LlmSources, LlmUnavailableError, TenantLlm } from './client';
export {
  type ChatTurn,
  type FieldStream,
  isAuthzHeader,
  type JsonCallOptions,
  type JsonLlm,
  type JsonSchemaFormat,
  LlmCallError,
  LlmEndpoint,
  type LlmEndpointOptions,
  shorten,
} from './endpoint';
export { type LlmEnv, llmEnv, llmVariables, parseLlmEnv } from './env';
export { JsonFieldText } from './field-text';
export {
  LlmConfigurationError,
  type LlmResolutionInput,
  type LlmSettings,
  resolveLlm,
  semanticRouter,
  stripProvider,
} from './resolve';
