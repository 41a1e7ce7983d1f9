/**
 * The process's telemetry over the configuration records: a tenant's spans follow its `telemetry` record and
 * the system configuration's `telemetry_url` (then `TESSERA_TELEMETRY_URL`).
 */
import { type Telemetry, type TelemetrySources, telemetry } from '@tessera/telemetry';
import type { ConfigDeps } from './deps';
import { systemConfig, tenantConfig } from './records';

export function telemetrySources(deps: ConfigDeps): TelemetrySources {
  return {
    tenantRecord: async (tenantId) => (await tenantConfig(deps, tenantId, 'telemetry')).value,
    systemUrl: async () => (await systemConfig(deps)).telemetry_url,
  };
}

/** Points the process's telemetry at the records of `deps`; the wiring of `config()` does it. */
export function traceWithRecords(deps: ConfigDeps): Telemetry {
  const shared = telemetry();
  shared.useSources(telemetrySources(deps));
  return shared;
}
