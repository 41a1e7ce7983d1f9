export * from './concurrency';
export * from './errors';
export * from './failpoints';
export * from './ids';
export { log } from './log';
export * from './network';
export * from './v8';
