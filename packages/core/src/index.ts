export * from './concurrency';
export { parseEnv, type SettingKey, type Settings, settingKey } from './env';
export * from './errors';
export * from './failpoints';
export * from './ids';
export { log } from './log';
export * from './network';
export type { SseStream } from './sse';
export * from './v8';
