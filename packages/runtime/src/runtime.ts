/**
 * The local runtime: emulators (unless an AWS endpoint is configured), the resources of the shared
 * definition, the route table's handlers behind a local API Gateway, and the scheduler.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Emulators, setAwsEndpoints, startEmulators, useEmulatorCredentials } from '@tessera/emulators';
import { platformEnv, provisionResources, queues, resourceName } from '@tessera/platform';
import { ApiActivity } from './activity';
import { runtimeEnv, silenceSdkNodeNotice, usesEmulators } from './env';
import type { LoadedRoute } from './http-server';
import { createApiServer } from './http-server';
import { installAwsLambdaGlobal } from './lambda-shim';
import { type LoadedQueueWorker, startQueuePollers } from './queue-poller';
import { runStartupJobs, startScheduler, startTickers } from './scheduler';

const functionsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../functions');

type RouteTable = typeof import('@tessera/functions/routes');

export interface Runtime {
  url: string;
  /** The emulators' single endpoint, when they run in this process. */
  emulatorUrl?: string;
  stop(): Promise<void>;
}

async function loadExport(handler: string, splitHandler: RouteTable['splitHandler']) {
  const { module, exportName } = splitHandler(handler);
  const loaded = await import(pathToFileURL(path.join(functionsDir, `${module}.ts`)).href);
  const fn = loaded[exportName];
  if (typeof fn !== 'function')
    throw new Error(`Route table names ${handler}, but functions/${module}.ts exports no such handler`);
  return fn;
}

/** The route table and every handler it names, imported (the module graph of every function). */
async function loadHandlers() {
  const table: RouteTable = await import(pathToFileURL(path.join(functionsDir, 'routes.ts')).href);
  const load = (handler: string) => loadExport(handler, table.splitHandler);
  const routes: LoadedRoute[] = await Promise.all(
    table.routes.map(async (route) => ({
      method: route.method,
      path: route.path,
      handlerName: route.handler,
      handler: await load(route.handler),
      timeoutSeconds: route.timeoutSeconds ?? 30,
    })),
  );
  const fallback = await load(table.fallbackHandler);
  const schedules = await Promise.all(
    table.schedules.map(async (schedule) => {
      const run = await load(schedule.handler);
      return {
        ...schedule,
        run: () => run({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} }),
      };
    }),
  );
  const tickers = await Promise.all(
    table.localTickers.map(async (ticker) => {
      const run = await load(ticker.handler);
      return { name: ticker.name, everyMs: ticker.everyMs, run: () => run({}) };
    }),
  );
  return { table, load, routes, fallback, schedules, tickers };
}

export async function startRuntime(): Promise<Runtime> {
  silenceSdkNodeNotice();
  installAwsLambdaGlobal();
  // The handlers load on this thread while the emulators start on theirs. No module reaches AWS when
  // imported: clients are made on first use, after the endpoints are set.
  const handlers = loadHandlers();
  handlers.catch(() => undefined);
  let emulators: Emulators | undefined;
  if (usesEmulators) {
    useEmulatorCredentials();
    emulators = await startEmulators({ dataDir: platformEnv.dataDir, gatewayPort: runtimeEnv.emulatorPort });
    setAwsEndpoints(emulators);
  } else if (runtimeEnv.awsEndpointUrl && !runtimeEnv.awsAccessKeyId) {
    // LocalStack or another runtime's emulators: any key works for LocalStack, s3rver wants its own.
    useEmulatorCredentials();
  }

  let server: Server | undefined;
  let stopScheduler = async () => {};
  let stopPollers = async () => {};
  try {
    if (runtimeEnv.cloud !== 'aws') await provisionResources();
    const { table, load, routes, fallback, schedules, tickers } = await handlers;

    // Settle what the last run left unfinished before answering anything.
    await runStartupJobs(schedules);
    if (emulators) {
      // The emulated queues keep messages in memory only: jobs left unfinished by the last run go back on.
      const recover = await load('workers/ingestion.recoverJobs');
      await recover({ idleSeconds: 0 });
    }

    // Locally the queue workers share this process with the API: a batch waits for a burst of requests.
    const activity = new ApiActivity();
    const api = createApiServer(routes, fallback, activity);
    server = api;
    await new Promise<void>((resolve, reject) => {
      api.once('error', reject);
      api.listen(runtimeEnv.port, runtimeEnv.host, resolve);
    });
    if (runtimeEnv.scheduler === 'on') {
      const stopSchedules = startScheduler(schedules);
      const stopTickers = startTickers(tickers);
      stopScheduler = async () => {
        await Promise.all([stopSchedules(), stopTickers()]);
      };
    }
    if (runtimeEnv.queueWorkers === 'on') {
      const workers: LoadedQueueWorker[] = await Promise.all(
        table.queueWorkers.map(async (worker) => {
          const queue = queues[worker.queue];
          const timeoutSeconds = runtimeEnv.queueTimeoutSeconds ?? worker.timeoutSeconds;
          return {
            name: worker.name,
            queueName: resourceName(worker.deadLetter ? queue.deadLetter : queue),
            batchSize: worker.batchSize,
            concurrency: worker.concurrency,
            timeoutSeconds,
            // A message stays hidden while its handler runs (the poller extends it) and comes back one
            // timeout after a process died: in AWS the queues hide messages six times as long (see resources.ts).
            visibilitySeconds: runtimeEnv.queueVisibilitySeconds ?? timeoutSeconds,
            run: await load(worker.handler),
          };
        }),
      );
      stopPollers = await startQueuePollers(workers, { before: (signal) => activity.quiet(signal) });
    }
  } catch (error) {
    await stopPollers();
    await emulators?.stop();
    throw error;
  }

  const address = server.address() as AddressInfo;
  const listening = server;
  return {
    url: `http://${runtimeEnv.host}:${address.port}`,
    emulatorUrl: emulators?.gateway,
    async stop() {
      await stopScheduler();
      await stopPollers();
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      });
      await emulators?.stop();
    },
  };
}
