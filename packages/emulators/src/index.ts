export { startLocalBackends } from './backends';
export { setAwsEndpoints, useEmulatorCredentials } from './env';
export type { EmulatorOptions, Emulators } from './thread';
export { startEmulators } from './thread';
