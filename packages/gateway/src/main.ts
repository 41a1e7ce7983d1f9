/** `npm run gateway`: the Telegram gateway against the runtime, until SIGINT or SIGTERM. */
import { log } from '@tessera/core';
import { gatewaySettings } from './env';
import { startGateway } from './gateway';

const settings = gatewaySettings();
const gateway = await startGateway(settings);
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
