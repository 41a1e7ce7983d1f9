/**
 * In-process AWS emulators: dynalite (DynamoDB, persisted under the data dir), fauxqs (SQS) and s3rver
 * (S3, objects on disk), behind one gateway endpoint that routes each request to its emulator the way
 * LocalStack's single endpoint does. DynamoDB requests are answered by dynalite's handler in this process;
 * the others are proxied to their emulator's listener.
 */
import type { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';
import S3rver from 's3rver';
import { lockDataDir } from './data-lock';
import { rememberDynaliteParses } from './dynalite-expressions';
import { readDynaliteSynchronously } from './dynalite-level';

export interface Emulators {
  /** The single endpoint for other processes. */
  gateway: string;
  dynamodb: string;
  sqs: string;
  s3: string;
  /** S3 event notifications (`{Records: [...]}`) of every object written or removed. */
  onS3Event(listener: (event: unknown) => void): void;
  stop(): Promise<void>;
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });

/** DynamoDB and SQS name their operation in `x-amz-target`; everything else is S3. */
export function routeOf(headers: http.IncomingHttpHeaders): 'dynamodb' | 'sqs' | 's3' {
  const target = String(headers['x-amz-target'] ?? '');
  if (target.startsWith('DynamoDB_')) return 'dynamodb';
  if (target.startsWith('AmazonSQS')) return 'sqs';
  const contentType = String(headers['content-type'] ?? '');
  if (contentType.startsWith('application/x-www-form-urlencoded')) return 'sqs';
  return 's3';
}

function gatewayServer(dynamodb: Server, targets: Record<'sqs' | 's3', URL>): Server {
  // Connections to the emulators are kept open: a new one per request would cost more than the request.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  return http.createServer((req, res) => {
    const route = routeOf(req.headers);
    // The hot path: a second HTTP hop to dynalite's listener took about a third of this process's CPU per request.
    if (route === 'dynamodb') {
      dynamodb.emit('request', req, res);
      return;
    }
    const target = targets[route];
    const upstream = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`emulator unavailable: ${error.message}`);
    });
    req.pipe(upstream);
  });
}

export async function startEmulators(options: {
  dataDir: string;
  host: string;
  gatewayPort: number;
}): Promise<Emulators> {
  const dynamoDir = path.join(options.dataDir, 'dynamodb');
  const s3Dir = path.join(options.dataDir, 's3');
  mkdirSync(dynamoDir, { recursive: true });
  mkdirSync(s3Dir, { recursive: true });
  const lock = lockDataDir(options.dataDir);

  readDynaliteSynchronously();
  rememberDynaliteParses();
  const dynamo = dynalite({ path: dynamoDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const dynamoAddress = await listen(dynamo, 0, options.host);
  const sqs = await startFauxqs({ port: 0, host: options.host, logger: false });
  const s3 = new S3rver({
    port: 0,
    address: options.host,
    directory: s3Dir,
    silent: true,
    allowMismatchedSignatures: true,
    vhostBuckets: false,
  });
  const s3Address = await s3.run();

  const urls = {
    dynamodb: `http://${options.host}:${dynamoAddress.port}`,
    sqs: `http://${options.host}:${sqs.port}`,
    s3: `http://${options.host}:${s3Address.port}`,
  };
  const gateway = gatewayServer(dynamo, {
    sqs: new URL(urls.sqs),
    s3: new URL(urls.s3),
  });
  const gatewayAddress = await listen(gateway, options.gatewayPort, options.host);
  const gatewayUrl = `http://${options.host}:${gatewayAddress.port}`;
  lock.publish(gatewayUrl);

  return {
    gateway: gatewayUrl,
    ...urls,
    onS3Event(listener) {
      // s3rver is a Koa application, an event emitter its typings leave out.
      (s3 as unknown as EventEmitter).on('event', listener);
    },
    async stop() {
      await close(gateway);
      await Promise.allSettled([close(dynamo), sqs.stop(), s3.close()]);
      lock.release();
    },
  };
}
