/** `npm start`: runs the platform locally until Ctrl-C. */
import { log, tuneV8ForShortJobs } from '@tessera/core';
import { platformEnv } from '@tessera/platform';
import { startRuntime } from './runtime';

tuneV8ForShortJobs();

try {
  const runtime = await startRuntime();
  const emulators = runtime.emulatorUrl ? `; AWS emulators at ${runtime.emulatorUrl}` : '';
  process.stdout.write(
    `Tessera runtime listening on ${runtime.url} (data in ${platformEnv.dataDir}${emulators}; ` +
      `ready ${Math.round(process.uptime() * 1000)} ms after process start)\n`,
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Received ${signal}, shutting down\n`);
    runtime.stop().then(
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
  process.exit(1);
}
