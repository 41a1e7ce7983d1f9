/**
 * The gateway process: the bot in polling mode (grammY's runner: up to 32 updates at once, one chat's in
 * order) or webhook mode (an HTTP server Telegram posts to, checking its secret token), and the outbound
 * delivery loop.
 */
import { createServer, type Server } from 'node:http';
import { type RunnerHandle, run } from '@grammyjs/runner';
import { log } from '@tessera/core';
import { webhookCallback } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import { createBot, PLATFORM, sendText } from './bot';
import type { GatewaySettings } from './env';
import { OutboundLoop } from './outbound';
import { RuntimeClient, type RuntimeTimeouts } from './runtime-client';

/** Updates handled at once (document 3, "Limits"). */
export const PARALLEL_UPDATES = 32;

export interface RunningGateway {
  /** Where the webhook server listens (webhook mode). */
  webhookAddress?: { host: string; port: number };
  outbound: OutboundLoop;
  stop(): Promise<void>;
}

export async function startGateway(
  settings: GatewaySettings,
  options: { timeouts?: RuntimeTimeouts; botInfo?: UserFromGetMe } = {},
): Promise<RunningGateway> {
  const runtime = new RuntimeClient(settings.runtimeUrl, options.timeouts);
  const bot = createBot({
    token: settings.botToken,
    apiRoot: settings.apiRoot,
    runtime,
    botInfo: options.botInfo,
  });
  await bot.init();
  const outbound = new OutboundLoop({
    drain: () => runtime.drain(PLATFORM),
    send: (chatId, text) => sendText(bot.api, chatId, text),
    pollMs: settings.outboundPollMs,
  });

  let runner: RunnerHandle | undefined;
  let server: Server | undefined;
  let webhookAddress: RunningGateway['webhookAddress'];
  if (settings.mode === 'polling') {
    await bot.api.deleteWebhook();
    runner = run(bot, {
      runner: { fetch: { timeout: 30 }, silent: true },
      sink: { concurrency: PARALLEL_UPDATES },
    });
  } else {
    const path = settings.webhookPath.startsWith('/') ? settings.webhookPath : `/${settings.webhookPath}`;
    const handle = webhookCallback(bot, 'http', {
      secretToken: settings.webhookSecret,
      onTimeout: 'return',
      timeoutMilliseconds: 55_000,
    });
    server = createServer((request, response) => {
      if (request.method !== 'POST' || (request.url ?? '').split('?')[0] !== path) {
        response.writeHead(404).end();
        return;
      }
      handle(request, response).catch((error: unknown) => {
        // A body that is not JSON is the sender's mistake, not the gateway's.
        if (error instanceof SyntaxError) {
          log.warn('webhook request refused: its body is not JSON');
          if (!response.headersSent)
            response
              .writeHead(400, { 'content-type': 'application/json' })
              .end(JSON.stringify({ detail: 'The body is not a Telegram update: it is not JSON' }));
          return;
        }
        log.error('webhook update failed', { error: error as Error });
        if (!response.headersSent) response.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) =>
      server!.listen(settings.webhookPort, settings.webhookListen, resolve),
    );
    const address = server.address();
    if (address && typeof address === 'object')
      webhookAddress = { host: address.address, port: address.port };
    await bot.api.setWebhook(settings.webhookUrl!, {
      ...(settings.webhookSecret ? { secret_token: settings.webhookSecret } : {}),
      max_connections: PARALLEL_UPDATES,
    });
  }
  outbound.start();
  log.info('gateway running', {
    mode: settings.mode,
    runtime: settings.runtimeUrl,
    bot: bot.botInfo.username,
  });
  return {
    webhookAddress,
    outbound,
    async stop() {
      await outbound.stop();
      if (runner?.isRunning()) await runner.stop();
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}
