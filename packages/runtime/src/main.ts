/** `npm start`: runs the platform locally until Ctrl-C, with the web client beside it. */
import { log, tuneV8ForShortJobs } from '@tessera/core';
import { platformEnv } from '@tessera/platform';
import { runtimeEnv } from './env';
import { type Runtime, startRuntime } from './runtime';
import { buildWebClient, startWeb, type Web } from './web';

tuneV8ForShortJobs();

let runtime: Runtime | undefined;
// The client builds (when it must) while the runtime starts.
const clientBuild = runtimeEnv.web === 'on' ? buildWebClient() : undefined;
clientBuild?.catch(() => {});
try {
  runtime = await startRuntime();
  const emulators = runtime.emulatorUrl ? `; AWS emulators at ${runtime.emulatorUrl}` : '';
  process.stdout.write(
    `Tessera runtime listening on ${runtime.url} (data in ${platformEnv.dataDir}${emulators}; ` +
      `ready ${Math.round(process.uptime() * 1000)} ms after process start)\n`,
  );
  let web: Web | undefined;
  if (clientBuild) {
    await clientBuild;
    web = await startWeb(runtime.url);
    process.stdout.write(`Tessera web client on ${web.url}\n`);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Received ${signal}, shutting down\n`);
    const running = runtime!;
    // The web server first: it revokes its harness keys while the runtime still answers.
    (web ? web.stop() : Promise.resolve())
      .then(() => running.stop())
      .then(
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
  log.error('runtime failed to start', { error });
  process.stderr.write(`Tessera runtime failed to start: ${(error as Error).message}\n`);
  await runtime?.stop().catch(() => {});
  process.exit(1);
}
