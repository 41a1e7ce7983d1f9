/** What one tenant's spans go through: its collector, level, project and export mode, from its record. */
import { Config } from '@tessera/api';

export type TelemetryLevel = Config.TelemetryConfig['level'];

/** The tenant of spans that name none (health, organization routes): the reserved system tenant. */
export const SYSTEM_TENANT = '__system__';

export interface TelemetrySettings {
  tenantId: string;
  /** OTLP/HTTP base URL; null when no collector is configured (nothing is exported). */
  collectorUrl: string | null;
  level: TelemetryLevel;
  /** `openinference.project.name` of the tenant's spans. */
  project: string;
  /** `service.name` of the tenant's spans. */
  service: string;
  synchronous: boolean;
  /** How long the tenant's tracer is kept before its record is read again into a new one. */
  ttlMs: number;
}

/** A record's template with the tenant filled in. */
export const fillTemplate = (template: string, tenantId: string) =>
  template.replaceAll('{tenant_id}', tenantId);

/** The record's defaults, for tenants without one and for the system tenant. */
export const defaultTelemetryRecord = (): Config.TelemetryConfig => Config.TelemetryConfig.parse({});

/**
 * The collector is the tenant's `collector_url`, else the system configuration's `telemetry_url`, else
 * `TESSERA_TELEMETRY_URL` (the order every configuration record resolves in).
 */
export function resolveTelemetry(input: {
  tenantId: string;
  record: Config.TelemetryConfig;
  systemUrl: string | null;
  envUrl: string | undefined;
}): TelemetrySettings {
  const { record, tenantId } = input;
  return {
    tenantId,
    collectorUrl: record.collector_url ?? input.systemUrl ?? input.envUrl ?? null,
    level: record.level,
    project: fillTemplate(record.tenant_project_template, tenantId),
    service: fillTemplate(record.tenant_service_template, tenantId),
    synchronous: record.synchronous_export,
    ttlMs: record.tenant_cache_ttl_seconds * 1000,
  };
}

/** Spans of a level are recorded when the tenant's level reaches it. */
const RANK: Record<TelemetryLevel, number> = { DISABLED: 0, BASIC: 1, DETAILED: 2, VERBOSE: 3 };
export const reaches = (level: TelemetryLevel, wanted: TelemetryLevel) => RANK[level] >= RANK[wanted];

/** The URL spans are posted to. */
export const tracesUrl = (collectorUrl: string) => `${collectorUrl.replace(/\/+$/, '')}/v1/traces`;
