/** OpenTelemetry tracing per tenant over OTLP/HTTP (document 2, "Telemetry configuration"). */
export { type TelemetryEnv, telemetryEnv } from './env';
export {
  defaultTelemetryRecord,
  fillTemplate,
  resolveTelemetry,
  SYSTEM_TENANT,
  type TelemetryLevel,
  type TelemetrySettings,
  tracesUrl,
} from './settings';
export {
  environmentSources,
  type SpanOptions,
  type SpanScope,
  TENANT_ATTRIBUTE,
  Telemetry,
  TelemetryProbeError,
  type TelemetrySources,
  type TelemetryStats,
  telemetry,
} from './telemetry';
