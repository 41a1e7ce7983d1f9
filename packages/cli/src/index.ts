export type { ConnectionOptions, RuntimeClientOptions } from './client';
export { connect, failureReason, RuntimeClient } from './client';
export type {
  CommonOptions,
  GraphNeighborsOptions,
  GraphPathOptions,
  GraphSearchOptions,
} from './commands/graph';
export {
  graphCommand,
  runGraphNeighbors,
  runGraphPath,
  runGraphSearch,
  runGraphStats,
} from './commands/graph';
export type { CliEnv } from './env';
export { cliEnv, DEFAULT_RUNTIME_URL, parseCliEnv } from './env';
export { CliError, errorReason, handleError, settle } from './errors';
export type { GraphEdge, GraphNeighbors, GraphPath, GraphSearch, GraphStats } from './graph-api';
export { neighborsLines, pathLines, searchLines, statsLines } from './graph-format';
export type { Output } from './output';
export { stdio } from './output';
export { buildProgram } from './program';
