/** `npm run gateway`: the Telegram gateway against the runtime, until SIGINT or SIGTERM. */
import { log } from '@tessera/core';
import { gatewaySettings } from './env';
import { startGateway } from './gateway';

/** A setting or start-up problem, said in one line: the user has a variable to fix, not a stack to read. */
function fail(error: unknown): never {
  process.stderr.write(`Tessera gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

let settings: ReturnType<typeof gatewaySettings>;
try {
  settings = gatewaySettings();
} catch (error) {
  fail(error);
}
const gateway = await startGateway(settings).catch(fail);
const address = gateway.webhookAddress
  ? ` on http://${gateway.webhookAddress.host}:${gateway.webhookAddress.port}`
  : '';
process.stdout.write(`gateway running (${settings.mode})${address} against ${settings.runtimeUrl}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    gateway.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('gateway stop failed', { error: error as Error });
        process.exit(1);
      },
    );
  });
}
