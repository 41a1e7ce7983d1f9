/**
 * The AWS emulators (emulators.ts) in a worker thread of the process that starts them: their work (parsing,
 * validating, LevelDB) is an AWS service's, not the functions', and on the main thread it took a fifth of
 * the CPU each request had. This module imports none of them, so the main thread loads its handlers while
 * the worker thread loads the emulators.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface Emulators {
  /** The one endpoint of every emulated service, for this process and others (`AWS_ENDPOINT_URL`). */
  gateway: string;
  stop(): Promise<void>;
}

export interface EmulatorOptions {
  dataDir: string;
  gatewayPort: number;
}

/** What the worker thread reports: its gateway once it listens, or why it could not start. */
export type EmulatorWorkerMessage = { gateway: string } | { error: string };

/**
 * Starts the emulators in a worker thread and answers once they listen. Node 20 applies no module hooks in
 * worker threads, so the thread loads its TypeScript through tsx's CommonJS hook. A failure of the thread
 * once started ends the process, as a failure of the emulators on the main thread would: nothing here works
 * without them.
 */
export async function startEmulators(options: EmulatorOptions): Promise<Emulators> {
  const entry = fileURLToPath(new URL('./emulator-worker.ts', import.meta.url));
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const worker = new Worker(
    `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`,
    {
      eval: true,
      workerData: options,
    },
  );
  const gateway = await new Promise<string>((resolve, reject) => {
    worker.once('message', (message: EmulatorWorkerMessage) =>
      'gateway' in message ? resolve(message.gateway) : reject(new Error(message.error)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`The AWS emulators exited (code ${code}) before they listened`)),
    );
  }).catch(async (error: unknown) => {
    // What the thread opened before it failed (a listener, the data directory's lock) goes with it.
    await worker.terminate();
    throw error;
  });
  let stopping = false;
  worker.on('error', (error) => {
    throw error;
  });
  worker.once('exit', (code) => {
    if (!stopping) throw new Error(`The AWS emulators exited unexpectedly (code ${code})`);
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    gateway,
    async stop() {
      stopping = true;
      worker.postMessage('stop');
      await exited;
    },
  };
}
