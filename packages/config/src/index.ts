/**
 * Configuration records (document 2): append-only, versioned, read through a per-process cache. The
 * platform's LLM client over them is `@tessera/config/llm`.
 */
export { ConfigCache } from './cache';
export type { ConfigDeps } from './deps';
export { DynamoConfigStore } from './dynamo-store';
export {
  type ConfigKind,
  type CurrentConfig,
  configAnswer,
  getSystemConfig,
  getTenantConfig,
  parseValue,
  purgeTenantConfig,
  putSystemConfig,
  putTenantConfig,
  readConfig,
  rollbackSystemConfig,
  rollbackTenantConfig,
  systemConfig,
  systemConfigHistory,
  type TenantConfigKind,
  tenantConfig,
  tenantConfigHistory,
} from './records';
export { type ConfigStore, ConfigVersion } from './store';
export { telemetrySources, traceWithRecords } from './telemetry';
export { config, configData, tracing } from './wiring';
