export { startLocalBackends } from './backends';
export type { Emulators } from './emulators';
export { EMULATOR_HOST, routeOf, startEmulators } from './emulators';
export { setAwsEndpoints, useEmulatorCredentials } from './env';
