/** `npm run web`: the web client server alone, against the runtime at `TESSERA_RUNTIME_URL`. */
import { log } from '@tessera/core';
import { ensureClientBuild } from './client-build';
import { webEnv } from './env';
import { startWebServer } from './server';

try {
  await ensureClientBuild(webEnv.webClientDir, (line) => process.stdout.write(`${line}\n`));
  const server = await startWebServer({
    port: webEnv.port,
    host: webEnv.host,
    runtimeUrl: webEnv.runtimeUrl,
    harnessKeyTtlS: webEnv.webHarnessKeyTtlS,
    streamUrls: webEnv.runtimeStreamUrls,
    clientDir: webEnv.webClientDir,
  });
  process.stdout.write(`Tessera web client on ${server.url} (runtime ${webEnv.runtimeUrl})\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Received ${signal}, shutting down\n`);
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  log.error('web server failed to start', { error });
  process.stderr.write(`Tessera web server failed to start: ${(error as Error).message}\n`);
  process.exit(1);
}
