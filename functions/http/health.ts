/** Liveness and the state of each backing service. */
import { httpRoute } from '@tessera/http';
import { awsServicesHealth, probe } from '@tessera/platform';
import { searchBackend } from '@tessera/tenancy';

const backend = searchBackend();

export const health = httpRoute({}, async () => {
  const [aws, search] = await Promise.all([awsServicesHealth(), probe(() => backend.ping())]);
  const services = { ...aws, search_backend: search };
  const healthy = Object.values(services).every((service) => service.status === 'ok');
  return { status: healthy ? 'ok' : 'degraded', services };
});
