/**
 * S3 event notifications to SQS for the emulated S3 (s3rver has none): a bucket's notification
 * configuration is set and read as S3 takes it (`PUT /<bucket>?notification`, the SDK's
 * PutBucketNotificationConfiguration), a test event goes to each queue it names, and every object event that
 * matches a queue configuration's events and key filter becomes a message on that queue, as S3 sends it.
 * So provisioning configures notifications the same way against AWS, LocalStack, moto and these emulators.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

interface QueueConfiguration {
  queueArn: string;
  /** `s3:ObjectCreated:*`, `s3:ObjectCreated:Put`, … */
  events: string[];
  prefix: string;
  suffix: string;
}

interface S3EventRecord {
  eventName: string;
  s3: { bucket: { name: string }; object: { key: string } };
}

/** Sends a message body to the queue of that name. */
export type QueueSender = (queueName: string, body: string) => Promise<void>;

const text = (xml: string, tag: string): string[] =>
  [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1]!.trim());

const unescapeXml = (value: string) =>
  value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** The queue configurations of a NotificationConfiguration document (topic and function ones are ignored). */
export function parseQueueConfigurations(xml: string): QueueConfiguration[] {
  return text(xml, 'QueueConfiguration').map((block) => {
    const rules = text(block, 'FilterRule').map((rule) => ({
      name: (text(rule, 'Name')[0] ?? '').toLowerCase(),
      value: unescapeXml(text(rule, 'Value')[0] ?? ''),
    }));
    return {
      queueArn: unescapeXml(text(block, 'Queue')[0] ?? ''),
      events: text(block, 'Event').map(unescapeXml),
      prefix: rules.find((rule) => rule.name === 'prefix')?.value ?? '',
      suffix: rules.find((rule) => rule.name === 'suffix')?.value ?? '',
    };
  });
}

const matchesEvent = (patterns: string[], eventName: string) =>
  patterns.some((pattern) => {
    const bare = pattern.replace(/^s3:/, '');
    return bare.endsWith(':*') ? eventName.startsWith(bare.slice(0, -1)) : eventName === bare;
  });

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });

export class BucketNotifications {
  private readonly documents = new Map<string, string>();
  private readonly queues = new Map<string, QueueConfiguration[]>();

  constructor(
    private readonly send: QueueSender,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Answers a bucket's notification configuration request; false for any other request. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const bucket = /^\/([^/]+)\/?$/.exec(url.pathname)?.[1];
    if (!bucket || !url.searchParams.has('notification')) return false;
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        this.documents.get(bucket) ??
          '<?xml version="1.0" encoding="UTF-8"?><NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>',
      );
      return true;
    }
    if (req.method !== 'PUT') return false;
    readBody(req).then(
      async (xml) => {
        const configurations = parseQueueConfigurations(xml);
        this.documents.set(bucket, xml);
        this.queues.set(bucket, configurations);
        // As S3 does, each queue a configuration names first gets a test event.
        const test = JSON.stringify({
          Service: 'Amazon S3',
          Event: 's3:TestEvent',
          Time: new Date().toISOString(),
          Bucket: bucket,
        });
        for (const queue of new Set(configurations.map((c) => c.queueArn))) {
          await this.send(queueName(queue), test).catch(this.onError);
        }
        res.writeHead(200);
        res.end();
      },
      () => res.destroy(),
    );
    return true;
  }

  /** Sends an object event to every queue whose configuration matches it. */
  deliver(event: unknown): void {
    for (const record of (event as { Records?: S3EventRecord[] }).Records ?? []) {
      const { name: bucket } = record.s3.bucket;
      const key = record.s3.object.key;
      for (const configuration of this.queues.get(bucket) ?? []) {
        if (!matchesEvent(configuration.events, record.eventName)) continue;
        if (!key.startsWith(configuration.prefix) || !key.endsWith(configuration.suffix)) continue;
        // S3 URL-encodes keys in notifications (spaces as '+').
        const encoded = encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+');
        const body = JSON.stringify({
          Records: [{ ...record, s3: { ...record.s3, object: { ...record.s3.object, key: encoded } } }],
        });
        this.send(queueName(configuration.queueArn), body).catch(this.onError);
      }
    }
  }
}

/** `arn:aws:sqs:<region>:<account>:<name>` → `<name>`. */
const queueName = (arn: string) => arn.split(':').pop() ?? arn;
