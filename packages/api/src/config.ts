/**
 * Configuration records (document 2, clarifications): the system configuration and, per tenant, the `llm`,
 * `llm_teacher`, `routing`, `telemetry` and `backend` records. Each is append-only and versioned: a write adds
 * a version, a rollback adds a version holding an older one's value, and history is never rewritten.
 * Every field has a default, so a record never written answers its defaults at version 0.
 */
import { z } from 'zod';
import { AgentName } from './agents';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';
import { queryInt } from './params';

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname }).max(2000);
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,100}$/, 'An HTTP header name: letters, digits and hyphens');

/** One LLM endpoint (the primary `llm` record, or the `llm_teacher` used only during prompt optimization). */
export const LlmEndpointConfig = z
  .strictObject({
    model: z
      .string()
      .min(1)
      .max(300)
      .meta({ description: 'Model with its provider prefix (`openai/qwen2.5-7b`); the prefix is not sent.' }),
    api_base: httpUrl.nullable().default(null).meta({
      description: 'OpenAI-compatible base URL including `/v1`; null: the system configuration’s `base_url`.',
    }),
    temperature: z.number().min(0).max(2).default(0.1),
    max_tokens: z.number().int().min(1).max(1_000_000).default(1000),
    context_window: z.number().int().min(1).nullable().default(null).meta({
      description: 'Tokens accepted per request, used only when the endpoint publishes no maximum.',
    }),
    request_timeout: z
      .number()
      .positive()
      .max(3600)
      .default(120)
      .meta({ description: 'Seconds per attempt.' }),
    num_retries: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(1)
      .meta({ description: 'Total attempts per call: 1 means no retry.' }),
    seed: z.number().int().nullable().default(null),
  })
  .meta({ id: 'LlmEndpointConfig' });
export type LlmEndpointConfig = z.output<typeof LlmEndpointConfig>;

/** An LLM record as read: the defaults of a record never written have no model yet. */
export const LlmEndpointRecord = LlmEndpointConfig.extend({ model: z.string().nullable() }).meta({
  id: 'LlmEndpointRecord',
});
export type LlmEndpointRecord = z.output<typeof LlmEndpointRecord>;

export const SemanticRouterConfig = z
  .strictObject({
    enabled: z.boolean().default(false).meta({ description: 'false leaves every endpoint unchanged.' }),
    semantic_router_url: z
      .union([z.literal(''), httpUrl])
      .default('')
      .meta({ description: "The router's OpenAI-compatible base URL; required when enabled." }),
    tier_header: headerName.default('x-authz-user-groups'),
    user_id_header: headerName.default('x-authz-user-id'),
    routed_model: z
      .string()
      .min(1)
      .max(300)
      .default('openai/auto')
      .meta({ description: "Replaces the endpoint's model on routed requests." }),
  })
  .meta({ id: 'SemanticRouterConfig' });
export type SemanticRouterConfig = z.output<typeof SemanticRouterConfig>;

/** Per-agent overrides of the agent registry's defaults. */
export const AgentOverride = z.strictObject({
  enabled: z.boolean().optional(),
  url: httpUrl.optional(),
  timeout: z.number().positive().max(3600).optional(),
});

export const SystemConfig = z
  .strictObject({
    llm_model: z
      .string()
      .min(1)
      .max(300)
      .nullable()
      .default(null)
      .meta({ description: 'Model of tenants without an `llm` record of their own.' }),
    base_url: httpUrl
      .nullable()
      .default(null)
      .meta({ description: 'Their LLM endpoint (base URL with `/v1`).' }),
    backend_url: httpUrl.nullable().default(null),
    backend_port: z.number().int().min(1).max(65_535).nullable().default(null),
    telemetry_url: httpUrl.nullable().default(null),
    search_backend: z.string().min(1).max(100).default('lancedb'),
    semantic_router: SemanticRouterConfig.prefault({}),
    agents: z
      .partialRecord(AgentName, AgentOverride)
      .default({})
      .meta({ description: 'Per-agent overrides of the registry defaults (`configs/agents.json`).' }),
  })
  .meta({ id: 'SystemConfig' });
export type SystemConfig = z.output<typeof SystemConfig>;

/** The entity labels of document 1, the default labels GLiNER is asked for. */
const ENTITY_LABELS = [
  'Person',
  'Organization',
  'Location',
  'Date',
  'Substance',
  'Award',
  'Field',
  'Event',
  'Concept',
  'Technology',
  'Product',
  'Algorithm',
  'Model',
  'Framework',
  'Language',
];

const threshold = (value: number) => z.number().min(0).max(1).default(value);
const seconds = (value: number) => z.number().int().min(1).max(31_536_000).default(value);

export const RoutingConfig = z
  .strictObject({
    routing_mode: z
      .string()
      .min(1)
      .max(50)
      .default('tiered')
      .meta({ description: 'Only `tiered` has effect.' }),
    enable_fast_path: z.boolean().default(true),
    enable_slow_path: z.boolean().default(true),
    enable_fallback: z.boolean().default(true),
    fast_path_confidence_threshold: threshold(0.7),
    slow_path_confidence_threshold: threshold(0.6),
    gliner_model: z.string().min(1).max(300).default('urchade/gliner_multi-v2.1'),
    gliner_threshold: threshold(0.5),
    gliner_device: z.string().min(1).max(50).default('cpu'),
    gliner_labels: z.array(z.string().min(1).max(100)).max(200).default(ENTITY_LABELS),
    dspy_enabled: z.boolean().default(false),
    dspy_max_bootstrapped_demos: z.number().int().min(0).max(1000).default(4),
    dspy_max_labeled_demos: z.number().int().min(0).max(1000).default(16),
    enable_caching: z.boolean().default(true),
    cache_ttl_seconds: seconds(3600),
    max_cache_size: z.number().int().min(1).max(10_000_000).default(1000),
    enable_auto_optimization: z.boolean().default(false),
    optimization_interval_seconds: seconds(3600),
  })
  .meta({ id: 'RoutingConfig' });
export type RoutingConfig = z.output<typeof RoutingConfig>;

export const TelemetryLevel = z.enum(['DISABLED', 'BASIC', 'DETAILED', 'VERBOSE']);
export const TelemetryConfig = z
  .strictObject({
    collector_url: httpUrl
      .nullable()
      .default(null)
      .meta({ description: 'OTLP/HTTP base URL (spans to `<url>/v1/traces`); null: the deployment’s.' }),
    level: TelemetryLevel.default('BASIC'),
    provider: z.enum(['phoenix', 'langsmith', 'auto']).default('auto'),
    tenant_project_template: z
      .string()
      .min(1)
      .max(200)
      .default('tessera-{tenant_id}')
      .meta({ description: 'The tenant’s project name, `{tenant_id}` replaced.' }),
    tenant_service_template: z.string().min(1).max(200).default('tessera-{tenant_id}'),
    max_cached_tenants: z.number().int().min(1).max(100_000).default(100),
    tenant_cache_ttl_seconds: seconds(3600),
    synchronous_export: z
      .boolean()
      .default(false)
      .meta({ description: 'Flush spans before a Lambda invocation returns.' }),
  })
  .meta({ id: 'TelemetryConfig' });
export type TelemetryConfig = z.output<typeof TelemetryConfig>;

export const BackendConfig = z
  .strictObject({
    url: httpUrl
      .nullable()
      .default(null)
      .meta({ description: "The tenant's own search backend; null: the deployment's." }),
    port: z.number().int().min(1).max(65_535).nullable().default(null),
    profiles: z
      .array(z.string().regex(/^[A-Za-z0-9_-]{1,100}$/))
      .max(1000)
      .default([])
      .meta({ description: 'Profiles this backend serves; empty: all of the tenant’s.' }),
  })
  .meta({ id: 'BackendConfig' });
export type BackendConfig = z.output<typeof BackendConfig>;

export const TenantConfigKind = z.enum(['llm', 'llm_teacher', 'routing', 'telemetry', 'backend']);
export type TenantConfigKind = z.infer<typeof TenantConfigKind>;
export type ConfigKind = TenantConfigKind | 'system';

/** The schema of each kind's value as written (every field defaulted, none unknown). */
export const configSchemas = {
  system: SystemConfig,
  llm: LlmEndpointConfig,
  llm_teacher: LlmEndpointConfig,
  routing: RoutingConfig,
  telemetry: TelemetryConfig,
  backend: BackendConfig,
} as const;

/** What a kind's value is, per kind. */
export type ConfigValue<K extends ConfigKind> = K extends 'llm' | 'llm_teacher'
  ? LlmEndpointRecord
  : z.output<(typeof configSchemas)[K]>;

/** Any kind's value as read (the union the tenant routes answer). */
export const AnyConfigValue = z.union([
  SystemConfig,
  LlmEndpointRecord,
  RoutingConfig,
  TelemetryConfig,
  BackendConfig,
]);

export const ConfigRecord = z
  .object({
    kind: z.enum(['system', ...TenantConfigKind.options]),
    tenant_id: z
      .string()
      .nullable()
      .meta({ description: 'The canonical tenant id; null for the system configuration.' }),
    version: z.number().int().min(0).meta({ description: '0: never written, the defaults.' }),
    value: AnyConfigValue,
    created_at: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Epoch ms of this version; null at version 0.' }),
    rolled_back_from: z
      .number()
      .int()
      .optional()
      .meta({ description: 'On a version a rollback wrote: the version whose value it restored.' }),
  })
  .meta({ id: 'ConfigRecord' });
export type ConfigRecord = z.infer<typeof ConfigRecord>;

export const ConfigVersionEntry = z.object({
  version: z.number().int().min(1),
  value: AnyConfigValue,
  created_at: z.number().int(),
  created_by: z.string(),
  rolled_back_from: z.number().int().optional(),
});

export const ConfigHistory = z
  .object({ versions: z.array(ConfigVersionEntry).meta({ description: 'Newest first.' }) })
  .meta({ id: 'ConfigHistory' });
export type ConfigHistory = z.infer<typeof ConfigHistory>;

export const RollbackRequest = z.strictObject({
  version: z.number().int().min(1).meta({ description: 'The version whose value becomes the new version.' }),
  created_by: z.string().min(1).max(200).default('api'),
});
export type RollbackRequest = z.output<typeof RollbackRequest>;

const writer = z.object({
  created_by: z
    .string()
    .min(1)
    .max(200)
    .default('api')
    .meta({ description: 'Who writes it; kept in the history.' }),
});
const historyQuery = z.object({ limit: queryInt({ min: 1, max: 1000, default: 100 }) });
const tenantKindPath = z.object({ tenant_full_id: z.string(), kind: TenantConfigKind });
const routerRequired = plain('`semantic_router_url is required when the semantic router is enabled`.');
const missingVersion = plain('The version to roll back to does not exist (or the record was never written).');

/** The body of a tenant record's write: the record of `kind` (validated per kind). */
// Any JSON object, kept as sent (a record schema would drop a `__proto__` key the per-kind schema must refuse).
const TenantConfigBody = z
  .custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    { message: 'Input should be a valid dictionary' },
  )
  .meta({
    description: 'The record of `kind`: LlmEndpointConfig, RoutingConfig, TelemetryConfig or BackendConfig.',
    override: {
      oneOf: ['LlmEndpointConfig', 'RoutingConfig', 'TelemetryConfig', 'BackendConfig'].map((id) => ({
        $ref: `#/components/schemas/${id}`,
      })),
    },
  });

export const getSystemConfig = route({
  id: 'getSystemConfig',
  group: 'config',
  method: 'GET',
  route: '/admin/config/system',
  summary: 'The system configuration (global)',
  responses: {
    200: { description: 'Its latest version, or its defaults at version 0.', schema: ConfigRecord },
  },
  errors: { 503: outage },
});

export const putSystemConfig = route({
  id: 'putSystemConfig',
  group: 'config',
  method: 'PUT',
  route: '/admin/config/system',
  summary: 'Write the system configuration (a new version)',
  query: writer,
  body: SystemConfig,
  responses: { 200: { description: 'The version written.', schema: ConfigRecord } },
  errors: { 400: routerRequired, 503: outage },
});

export const systemConfigHistory = route({
  id: 'systemConfigHistory',
  group: 'config',
  method: 'GET',
  route: '/admin/config/system/history',
  summary: 'Every version of the system configuration, newest first',
  query: historyQuery,
  responses: { 200: { description: 'The versions.', schema: ConfigHistory } },
  errors: { 503: outage },
});

export const rollbackSystemConfig = route({
  id: 'rollbackSystemConfig',
  group: 'config',
  method: 'POST',
  route: '/admin/config/system/rollback',
  summary: 'Write a new version holding an older version’s value',
  body: RollbackRequest,
  responses: { 200: { description: 'The version written, with `rolled_back_from`.', schema: ConfigRecord } },
  errors: { 404: missingVersion, 503: outage },
});

export const getTenantConfig = route({
  id: 'getTenantConfig',
  group: 'config',
  method: 'GET',
  route: '/admin/tenants/{tenant_full_id}/config/{kind}',
  summary: "A tenant's configuration record",
  path: tenantKindPath,
  responses: {
    200: { description: 'Its latest version, or its defaults at version 0.', schema: ConfigRecord },
  },
  errors: { ...tenantGuard, 503: outage },
});

export const putTenantConfig = route({
  id: 'putTenantConfig',
  group: 'config',
  method: 'PUT',
  route: '/admin/tenants/{tenant_full_id}/config/{kind}',
  summary: "Write a tenant's configuration record (a new version)",
  path: tenantKindPath,
  query: writer,
  body: TenantConfigBody,
  responses: { 200: { description: 'The version written.', schema: ConfigRecord } },
  errors: { ...tenantGuard, 503: outage },
});

export const tenantConfigHistory = route({
  id: 'tenantConfigHistory',
  group: 'config',
  method: 'GET',
  route: '/admin/tenants/{tenant_full_id}/config/{kind}/history',
  summary: "Every version of a tenant's record, newest first",
  path: tenantKindPath,
  query: historyQuery,
  responses: { 200: { description: 'The versions.', schema: ConfigHistory } },
  errors: { ...tenantGuard, 503: outage },
});

export const rollbackTenantConfig = route({
  id: 'rollbackTenantConfig',
  group: 'config',
  method: 'POST',
  route: '/admin/tenants/{tenant_full_id}/config/{kind}/rollback',
  summary: "Write a new version of a tenant's record holding an older version’s value",
  path: tenantKindPath,
  body: RollbackRequest,
  responses: { 200: { description: 'The version written, with `rolled_back_from`.', schema: ConfigRecord } },
  errors: { ...tenantGuard, 404: missingVersion, 503: outage },
});
