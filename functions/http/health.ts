/** Liveness, the state of each backing service, and whether spans have a collector to go to. */
import { Health } from '@tessera/api';
import { tracing } from '@tessera/config';
import { httpRoute } from '@tessera/http';
import { awsServicesHealth, probe } from '@tessera/platform';
import { searchBackend } from '@tessera/tenancy';

const backend = searchBackend();
const telemetry = tracing();

async function telemetryHealth(): Promise<Health.TelemetryHealth> {
  const collector = await telemetry.deploymentCollector().catch(() => null);
  return collector
    ? {
        status: 'configured',
        collector_url: collector,
        message: `Spans are exported to ${collector}/v1/traces`,
      }
    : {
        status: 'not_configured',
        collector_url: null,
        message:
          'No telemetry collector is configured: spans are not exported (set TESSERA_TELEMETRY_URL, the system configuration’s telemetry_url or a tenant’s telemetry record)',
      };
}

export const health = httpRoute(Health.health, async () => {
  const [aws, search, telemetryState] = await Promise.all([
    awsServicesHealth(),
    probe(() => backend.ping()),
    telemetryHealth(),
  ]);
  const services = { ...aws, search_backend: search };
  const healthy = Object.values(services).every((service) => service.status === 'ok');
  return { status: healthy ? ('ok' as const) : ('degraded' as const), telemetry: telemetryState, services };
});
