/** In-process AWS backends for tests and tools: emulators started, this process pointed at them, resources created. */
import { provisionResources } from '@tessera/platform';
import { setAwsEndpoints, useEmulatorCredentials } from './env';
import { type Emulators, startEmulators } from './thread';

export async function startLocalBackends(dataDir: string): Promise<Emulators> {
  const emulators = await startEmulators({ dataDir, gatewayPort: 0 });
  useEmulatorCredentials();
  setAwsEndpoints(emulators);
  await provisionResources();
  return emulators;
}
