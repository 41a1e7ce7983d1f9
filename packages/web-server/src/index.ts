export { isForwarded } from './allowlist';
export { createWebApp, type WebAppOptions } from './app';
export { clientBuildIsFresh, ensureClientBuild } from './client-build';
export { defaultClientDir, readWebEnv, type WebSettings, webEnv } from './env';
export {
  createForwarder,
  forwardedRequestHeaders,
  forwardedResponseHeaders,
  runtimeUnavailable,
} from './forward';
export { HarnessKeyError, HarnessKeys, type HarnessKeysOptions, MintedKey } from './harness-keys';
export { startWebServer, type WebServer, type WebServerOptions } from './server';
