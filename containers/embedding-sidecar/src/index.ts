export { parseSidecarEnv, type SidecarEnv } from './env';
export { EmbeddingSidecarServer, type SidecarOptions } from './server';
