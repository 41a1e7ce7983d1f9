/** Settings of the messaging gateway (clarifications "Messaging"; document 3 "Messaging gateway behaviour"). */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z
  .object({
    TELEGRAM_BOT_TOKEN: z
      .string({ error: 'required: the bot token BotFather gave you (<digits>:<secret>)' })
      .regex(/^[0-9]+:[A-Za-z0-9_-]+$/, 'a bot token: <digits>:<secret>'),
    /** The runtime's base URL (document 3's `RUNTIME_URL` is read when this is unset). */
    TESSERA_RUNTIME_URL: z.url().default('http://localhost:28000'),
    GATEWAY_MODE: z.enum(['polling', 'webhook']).default('polling'),
    TELEGRAM_WEBHOOK_URL: z.url().optional(),
    /** Telegram sends it back in `X-Telegram-Bot-Api-Secret-Token` on every webhook call. */
    TELEGRAM_WEBHOOK_SECRET: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,256}$/, '1 to 256 letters, digits, _ or -')
      .optional(),
    GATEWAY_WEBHOOK_LISTEN: z.string().min(1).default('0.0.0.0'),
    GATEWAY_WEBHOOK_PORT: z.coerce.number().int().min(0).max(65_535).default(8443),
    GATEWAY_WEBHOOK_PATH: z.string().default(''),
    GATEWAY_OUTBOUND_POLL_SECONDS: z.coerce.number().min(0.05).max(3600).default(5),
    TELEGRAM_API_ROOT: z.url().default('https://api.telegram.org'),
  })
  .refine((env) => env.GATEWAY_MODE !== 'webhook' || env.TELEGRAM_WEBHOOK_URL !== undefined, {
    message: 'TELEGRAM_WEBHOOK_URL is required when GATEWAY_MODE is webhook',
    path: ['TELEGRAM_WEBHOOK_URL'],
  });

export interface GatewaySettings {
  botToken: string;
  runtimeUrl: string;
  mode: 'polling' | 'webhook';
  webhookUrl?: string;
  webhookSecret?: string;
  webhookListen: string;
  webhookPort: number;
  webhookPath: string;
  outboundPollMs: number;
  apiRoot: string;
}

/** The gateway's settings from the environment (process.env by default); throws naming every bad variable. */
export function gatewaySettings(source: Record<string, string | undefined> = process.env): GatewaySettings {
  const env = parseEnv('gateway', schema, {
    ...source,
    TESSERA_RUNTIME_URL: source.TESSERA_RUNTIME_URL || source.RUNTIME_URL,
  });
  return {
    botToken: env.telegramBotToken,
    runtimeUrl: env.runtimeUrl.replace(/\/+$/, ''),
    mode: env.gatewayMode,
    webhookUrl: env.telegramWebhookUrl,
    webhookSecret: env.telegramWebhookSecret,
    webhookListen: env.gatewayWebhookListen,
    webhookPort: env.gatewayWebhookPort,
    webhookPath: env.gatewayWebhookPath,
    outboundPollMs: env.gatewayOutboundPollSeconds * 1000,
    apiRoot: env.telegramApiRoot.replace(/\/+$/, ''),
  };
}

const intakeSchema = z.object({
  TELEGRAM_WEBHOOK_SECRET: z.string().regex(/^[A-Za-z0-9_-]{1,256}$/, '1 to 256 letters, digits, _ or -'),
  /** The FIFO queue the webhook function hands updates to (set by the stacks). */
  TESSERA_TELEGRAM_UPDATES_QUEUE_URL: z.url(),
});

/** The webhook intake's settings in AWS: the secret Telegram sends back, and the updates queue. */
export function webhookIntakeSettings(source: Record<string, string | undefined> = process.env) {
  const env = parseEnv('telegram webhook', intakeSchema, source);
  return { secret: env.telegramWebhookSecret, queueUrl: env.telegramUpdatesQueueUrl };
}
