/**
 * The AWS emulators on the thread that serves them: dynalite (DynamoDB, persisted under the data dir), fauxqs (SQS) and s3rver
 * (S3, objects on disk), behind one gateway endpoint that routes each request to its emulator the way
 * LocalStack's single endpoint does (`startEmulators` in thread.ts runs them in a worker thread). Every
 * request is answered in that thread by its emulator's handler; the gateway is the only endpoint and it listens on loopback, so every URL the emulators hand out
 * (queue URLs, presigned URLs) names it, and a fixed gateway port keeps them valid across restarts.
 */
import type { EventEmitter } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { log } from '@tessera/core';
import dynalite from 'dynalite';
import type { buildApp } from 'fauxqs';
import S3rver from 's3rver';
import { lockDataDir } from './data-lock';
import { rememberDynaliteParses } from './dynalite-expressions';
import { readDynaliteSynchronously } from './dynalite-level';
import { BucketNotifications } from './s3-notifications';
import type { EmulatorOptions, Emulators } from './thread';

/** Where the emulators listen: loopback only, whatever the API's own host. */
export const EMULATOR_HOST = '127.0.0.1';

type BuildAppOptions = NonNullable<Parameters<typeof buildApp>[0]>;
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const listen = (server: Server, port: number) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, EMULATOR_HOST, () => resolve(server.address() as AddressInfo));
  });

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });

const SERVICES = { dynamodb: 'dynamodb', sqs: 'sqs', s3: 's3' } as const;

/**
 * The service a request is for. A signed request names it in its credential scope (`Credential=<key>/<date>/
 * <region>/<service>/aws4_request`, in the Authorization header or, presigned, in `X-Amz-Credential`); an
 * unsigned one by DynamoDB's and SQS's target header or SQS's form-encoded query protocol; anything else is S3.
 */
export function routeOf(headers: http.IncomingHttpHeaders, url = '/'): 'dynamodb' | 'sqs' | 's3' {
  const scope =
    /Credential=[^/,\s]+\/\d{8}\/[^/]+\/([a-z0-9-]+)\/aws4_request/.exec(
      String(headers.authorization ?? ''),
    )?.[1] ??
    /[?&]X-Amz-Credential=[^&/]+(?:\/|%2F)\d{8}(?:\/|%2F)[^&/%]+(?:\/|%2F)([a-z0-9-]+)(?:\/|%2F)aws4_request/i.exec(
      url,
    )?.[1];
  const signed = scope ? SERVICES[scope as keyof typeof SERVICES] : undefined;
  if (signed) return signed;
  const target = String(headers['x-amz-target'] ?? '');
  if (target.startsWith('DynamoDB_')) return 'dynamodb';
  if (target.startsWith('AmazonSQS')) return 'sqs';
  const contentType = String(headers['content-type'] ?? '');
  if (contentType.startsWith('application/x-www-form-urlencoded')) return 'sqs';
  return 's3';
}

/**
 * fauxqs's SQS store with no host of its own, so queue URLs name the host each request came to (the
 * gateway): by default they name `sqs.<region>.localhost`, which does not resolve everywhere. The store is
 * not among the package's exports; it is loaded from the installed package's files, the very module its
 * app imports.
 */
async function sqsStoreNamingRequestHost(): Promise<unknown> {
  const file = createRequire(import.meta.url)
    .resolve.paths('fauxqs')
    ?.map((dir) => path.join(dir, 'fauxqs/dist/sqs/sqsStore.js'))
    .find((candidate) => existsSync(candidate));
  if (!file) throw new Error('fauxqs is not installed: its SQS store was not found');
  const { SqsStore } = (await import(pathToFileURL(file).href)) as { SqsStore: new () => { host: string } };
  const store = new SqsStore();
  store.host = '';
  return store;
}

/**
 * Sends a message in process, as a client through the gateway would (the queue URL fauxqs made names the
 * host its queues were created through).
 */
async function sendToQueue(sqs: ReturnType<typeof buildApp>, host: string, queueName: string, body: string) {
  const call = async (action: string, payload: unknown) => {
    const answer = await sqs.inject({
      method: 'POST',
      url: '/',
      headers: { host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
      payload: JSON.stringify(payload),
    });
    if (answer.statusCode !== 200)
      throw new Error(`SQS ${action} answered ${answer.statusCode}: ${answer.body}`);
    return answer.json() as { QueueUrl?: string };
  };
  const { QueueUrl } = await call('GetQueueUrl', { QueueName: queueName });
  await call('SendMessage', { QueueUrl, MessageBody: body });
}

function gatewayServer(handlers: Record<'dynamodb' | 'sqs' | 's3', Handler>): Server {
  return http.createServer((req, res) => {
    // A client that goes away mid-request must not take the process with it.
    req.on('error', () => res.destroy());
    res.on('error', () => undefined);
    handlers[routeOf(req.headers, req.url)](req, res);
  });
}

/** Starts the emulators on the calling thread (the worker thread's entry point calls this). */
export async function serveEmulators(options: EmulatorOptions): Promise<Emulators> {
  const dynamoDir = path.join(options.dataDir, 'dynamodb');
  const s3Dir = path.join(options.dataDir, 's3');
  mkdirSync(dynamoDir, { recursive: true });
  mkdirSync(s3Dir, { recursive: true });
  const lock = lockDataDir(options.dataDir);

  readDynaliteSynchronously();
  rememberDynaliteParses();
  const dynamo = dynalite({ path: dynamoDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Requests reach dynalite through the gateway; its own listener (loopback, unannounced) is what lets it
  // close its database when stopped.
  await listen(dynamo, 0);
  // buildApp makes the stores it is not given.
  const stores = { sqsStore: await sqsStoreNamingRequestHost() } as unknown as BuildAppOptions['stores'];
  // Imported when used: fauxqs is ES modules only, and the worker thread loads this file as CommonJS.
  const { buildApp: buildSqsApp } = await import('fauxqs');
  const sqs = buildSqsApp({ logger: false, stores });
  await sqs.ready();
  const s3 = new S3rver({
    directory: s3Dir,
    silent: true,
    allowMismatchedSignatures: true,
    vhostBuckets: false,
  });
  const s3Handler = s3.callback();
  let gatewayHost = '';
  const notifications = new BucketNotifications(
    (queueName, body) => sendToQueue(sqs, gatewayHost, queueName, body),
    (error) => log.error('could not send an S3 notification', { error }),
  );
  // s3rver is a Koa application, an event emitter its typings leave out.
  (s3 as unknown as EventEmitter).on('event', (event: unknown) => notifications.deliver(event));
  const gateway = gatewayServer({
    // A second HTTP hop per request took about a third of this process's CPU: each emulator answers in place.
    dynamodb: (req, res) => dynamo.emit('request', req, res),
    sqs: (req, res) => sqs.routing(req, res),
    s3: (req, res) => {
      if (!notifications.handle(req, res)) s3Handler(req, res);
    },
  });
  const gatewayAddress = await listen(gateway, options.gatewayPort);
  gatewayHost = `${EMULATOR_HOST}:${gatewayAddress.port}`;
  const gatewayUrl = `http://${gatewayHost}`;
  lock.publish(gatewayUrl);

  return {
    gateway: gatewayUrl,
    async stop() {
      await close(gateway);
      await Promise.allSettled([close(dynamo), sqs.close()]);
      lock.release();
    },
  };
}
