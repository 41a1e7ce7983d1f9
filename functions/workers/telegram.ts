/**
 * The Telegram gateway in AWS (webhook mode). `webhook` serves the function URL Telegram posts updates to:
 * the secret-token header checked, the update id recorded, the update handed to the FIFO queue of its chat,
 * answered at once. `processUpdates` reads that queue (one chat's updates in order) and runs the bot on each,
 * calling the runtime's API as the polling gateway does. `deliver`, started every minute, drains the outbound
 * queue and sends its messages every poll interval until the next start.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createBot,
  gatewaySettings,
  OutboundLoop,
  PLATFORM,
  RuntimeClient,
  sendText,
} from '@tessera/gateway';
import { acceptWebhook, DynamoUpdateLog, SqsUpdateQueue, webhookIntakeSettings } from '@tessera/gateway/aws';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { BotError } from 'grammy';

let intake: Parameters<typeof acceptWebhook>[0] | undefined;

export async function webhook(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  if (!intake) {
    const settings = webhookIntakeSettings();
    intake = {
      log: new DynamoUpdateLog(),
      queue: new SqsUpdateQueue(settings.queueUrl),
      secret: settings.secret,
      now: Date.now,
    };
  }
  if (event.requestContext?.http?.method !== 'POST') return { statusCode: 405, body: 'POST updates here' };
  const body = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : event.body;
  const answer = await acceptWebhook(intake, {
    secretHeader: event.headers?.['x-telegram-bot-api-secret-token'],
    body,
  });
  return { statusCode: answer.status, headers: { 'content-type': 'text/plain' }, body: answer.body };
}

let bot: ReturnType<typeof createBot> | undefined;

async function theBot() {
  if (!bot) {
    const settings = gatewaySettings();
    const built = createBot({
      token: settings.botToken,
      apiRoot: settings.apiRoot,
      runtime: new RuntimeClient(settings.runtimeUrl),
    });
    await built.init();
    bot = built;
  }
  return bot;
}

/** Runs the bot on each queued update, in order; an update that could not run and every later one retry. */
export async function processUpdates(event: SQSEvent): Promise<SQSBatchResponse> {
  const handler = await theBot();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    if (failures.length > 0) {
      failures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      await handler.handleUpdate(JSON.parse(record.body));
    } catch (error) {
      // A handler's failure is told to the user (the bot's error handler) and not run again; anything else
      // (the Bot API not answering) leaves the update to its retry.
      if (error instanceof BotError) await handler.errorHandler(error);
      else failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

/**
 * Outbound delivery for about a minute: a drain and its sends every `GATEWAY_OUTBOUND_POLL_SECONDS`, failed
 * sends retried on the next ticks (3 attempts; the buffer ends with the run, as a gateway restart loses it).
 */
export async function deliver(_event: unknown, context: Context) {
  const settings = gatewaySettings();
  const handler = await theBot();
  const runtime = new RuntimeClient(settings.runtimeUrl);
  const loop = new OutboundLoop({
    drain: () => runtime.drain(PLATFORM),
    send: (chatId, text) => sendText(handler.api, chatId, text),
    pollMs: settings.outboundPollMs,
  });
  // Stops a poll interval (and the time a tick may take) before the run's end: the next run drains on.
  while (context.getRemainingTimeInMillis() > settings.outboundPollMs + 15_000) {
    await loop.tick();
    await sleep(settings.outboundPollMs);
  }
  return loop.counts;
}
