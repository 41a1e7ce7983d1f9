/** The emulators' worker thread: starts them, reports their gateway, and stops them when told. */
import { parentPort, workerData } from 'node:worker_threads';
import { serveEmulators } from './emulators';
import type { EmulatorOptions, EmulatorWorkerMessage } from './thread';

const report = (message: EmulatorWorkerMessage) => parentPort!.postMessage(message);

// No top-level await: the thread loads this file as CommonJS.
serveEmulators(workerData as EmulatorOptions).then(
  (emulators) => {
    report({ gateway: emulators.gateway });
    parentPort!.once('message', async () => {
      await emulators.stop();
      process.exit(0);
    });
  },
  (error: unknown) => report({ error: error instanceof Error ? error.message : String(error) }),
);
