import { RUNTIME_URL_VARIABLE, TelegramWebhook, UPDATES_QUEUE_VARIABLE } from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

const TOKEN_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tessera/telegram-token-AbCdEf';

describe('TelegramWebhook', () => {
  let shared: { stack: Stack; telegram: TelegramWebhook; template: Template };

  beforeAll(() => {
    const { stack, functions } = compose(apps.create(), 'TelegramTest', 'test', undefined, {
      secrets: {
        TELEGRAM_BOT_TOKEN: { secretArn: TOKEN_ARN },
        TELEGRAM_WEBHOOK_SECRET: { parameterName: '/tessera/telegram-webhook-secret' },
      },
    });
    const telegram = new TelegramWebhook(stack, 'Telegram', {
      functions,
      runtimeUrl: 'https://api.example.test',
    });
    shared = { stack, telegram, template: Template.fromStack(stack) };
  }, 600_000);

  it('hands updates to a FIFO queue with a dead-letter queue, read by the worker with partial failures', () => {
    const { stack, telegram, template } = shared;
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: false,
      VisibilityTimeout: 1800,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(stack, telegram.worker) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, telegram.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('serves the webhook as a public function URL that may only send to the queue', () => {
    const { stack, telegram, template } = shared;
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [logicalId(stack, telegram.webhook), 'Arn'] },
    });
    const webhook = template.toJSON().Resources[logicalId(stack, telegram.webhook)];
    const env = webhook.Properties.Environment.Variables;
    expect(env[UPDATES_QUEUE_VARIABLE]).toEqual({ Ref: logicalId(stack, telegram.queue) });
    // The webhook reads the secret, never the bot's token itself.
    expect(env.TELEGRAM_WEBHOOK_SECRET_PARAMETER).toBe('/tessera/telegram-webhook-secret');
    expect(Object.keys(env).filter((name) => /^TELEGRAM_(BOT_TOKEN|WEBHOOK_SECRET)$/.test(name))).toEqual([]);
    template.hasOutput('*', { Description: Match.stringLikeRegexp("Telegram's webhook") });
  });

  it('starts the outbound delivery every minute', () => {
    const { stack, telegram, template } = shared;
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack, telegram.delivery), 'Arn'] } })],
    });
    const env =
      template.toJSON().Resources[logicalId(stack, telegram.delivery)].Properties.Environment.Variables;
    expect(env[RUNTIME_URL_VARIABLE]).toBe('https://api.example.test');
    expect(env.TELEGRAM_BOT_TOKEN_SECRET_ARN).toBe(TOKEN_ARN);
  });

  it('gives the worker the runtime URL and the bot token only as a Secrets Manager reference', () => {
    const { stack, telegram, template } = shared;
    const worker = template.toJSON().Resources[logicalId(stack, telegram.worker)];
    const env = worker.Properties.Environment.Variables;
    expect(env[RUNTIME_URL_VARIABLE]).toBe('https://api.example.test');
    expect(env.TELEGRAM_BOT_TOKEN_SECRET_ARN).toBe(TOKEN_ARN);
    expect(env.TELEGRAM_BOT_TOKEN).toBeUndefined();
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain(TOKEN_ARN);
    expect(policies).toContain('secretsmanager:GetSecretValue');
  });
});
