/** Liveness and the state of each backing service. */
import { Health } from '@tessera/api';
import { httpRoute } from '@tessera/http';
import { awsServicesHealth, probe } from '@tessera/platform';
import { searchBackend } from '@tessera/tenancy';

const backend = searchBackend();

export const health = httpRoute(Health.health, async () => {
  const [aws, search] = await Promise.all([awsServicesHealth(), probe(() => backend.ping())]);
  const services = { ...aws, search_backend: search };
  const healthy = Object.values(services).every((service) => service.status === 'ok');
  return { status: healthy ? ('ok' as const) : ('degraded' as const), services };
});
