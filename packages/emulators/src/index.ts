export { startLocalBackends } from './backends';
export type { Emulators } from './emulators';
export { routeOf, startEmulators } from './emulators';
export { setAwsEndpoints, useEmulatorCredentials } from './env';
