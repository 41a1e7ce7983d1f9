export { parseMediaWorkerEnv } from './env';
export { type ConsumeOptions, consumeQueue } from './queue';
export { jobArgument, mediaWorkerDeps } from './worker';
