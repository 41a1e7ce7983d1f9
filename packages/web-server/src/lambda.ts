/**
 * The web server as an AWS Lambda function behind a response-streaming function URL (stacks/web.ts): the
 * same app as `npm run web`, without the built client (CloudFront serves it from S3). Server-sent events and
 * chat runs stream through as the runtime writes them. Harness keys are held per function instance; an
 * instance has no stop to revoke them at, so they end with their ttl (document 3: a server that does not stop
 * cleanly leaves its keys to expire).
 */
import { streamHandle } from 'hono/aws-lambda';
import { createWebApp } from './app';
import { webEnv } from './env';
import { HarnessKeys } from './harness-keys';

const app = createWebApp({
  runtimeUrl: webEnv.runtimeUrl,
  streamUrls: webEnv.runtimeStreamUrls,
  harnessKeys: new HarnessKeys({ runtimeUrl: webEnv.runtimeUrl, ttlSeconds: webEnv.webHarnessKeyTtlS }),
});

export const handler = streamHandle(app);
