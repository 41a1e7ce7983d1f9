/** The telemetry settings of the deployment: its collector and the bounds of the per-tenant tracer cache. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z.object({
  /** OTLP/HTTP base URL of the deployment's collector (spans go to `<url>/v1/traces`). */
  TESSERA_TELEMETRY_URL: z.url().optional(),
  /** Tenants whose tracers a process keeps at most (document 2's `max_cached_tenants`). */
  TESSERA_TELEMETRY_MAX_CACHED_TENANTS: z.coerce.number().int().min(1).max(100_000).default(100),
  /** Milliseconds an export (and a synchronous flush) may take before it is given up. */
  TESSERA_TELEMETRY_EXPORT_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3000),
});

export const telemetryEnv = parseEnv('telemetry', schema);
export type TelemetryEnv = typeof telemetryEnv;
