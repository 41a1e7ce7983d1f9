/** Starting and stopping the web client server on a Node HTTP listener. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { log } from '@tessera/core';
import { createWebApp } from './app';
import { HarnessKeys } from './harness-keys';

export interface WebServerOptions {
  port: number;
  host: string;
  runtimeUrl: string;
  harnessKeyTtlS: number;
  /** Runtime routes answered at their own base URL (`TESSERA_RUNTIME_STREAM_URLS`). */
  streamUrls?: Record<string, string>;
  clientDir?: string;
}

export interface WebServer {
  url: string;
  harnessKeys: HarnessKeys;
  /** Closes the listener and its open streams, then revokes the harness keys it minted. */
  stop(): Promise<void>;
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const harnessKeys = new HarnessKeys({ runtimeUrl: options.runtimeUrl, ttlSeconds: options.harnessKeyTtlS });
  const app = createWebApp({
    runtimeUrl: options.runtimeUrl,
    streamUrls: options.streamUrls,
    clientDir: options.clientDir,
    harnessKeys,
  });
  // The runtime may share this process (`npm start`): its globals stay Node's own.
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    harnessKeys,
    stop() {
      stopping ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Open event streams would hold the listener open; their upstream requests abort with them.
          server.closeAllConnections();
        });
        const { revoked, failed } = await harnessKeys.revokeAll();
        if (failed > 0) log.warn('harness keys left to expire', { revoked, failed });
      })();
      return stopping;
    },
  };
}
