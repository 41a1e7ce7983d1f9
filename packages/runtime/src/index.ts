export type { Runtime } from './runtime';
export { startRuntime } from './runtime';
