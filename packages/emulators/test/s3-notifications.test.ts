import { describe, expect, it } from 'vitest';
import { BucketNotifications, parseQueueConfigurations } from '../src/s3-notifications';

const configuration = `<?xml version="1.0" encoding="UTF-8"?>
<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <QueueConfiguration><Id>ingestion-incoming</Id><Queue>arn:aws:sqs:us-east-1:000000000000:jobs</Queue>
    <Event>s3:ObjectCreated:*</Event>
    <Filter><S3Key><FilterRule><Name>prefix</Name><Value>incoming/</Value></FilterRule></S3Key></Filter>
  </QueueConfiguration>
  <QueueConfiguration><Queue>arn:aws:sqs:us-east-1:000000000000:pdfs</Queue>
    <Event>s3:ObjectCreated:Put</Event>
    <Filter><S3Key><FilterRule><Name>Suffix</Name><Value>.pdf</Value></FilterRule></S3Key></Filter>
  </QueueConfiguration>
</NotificationConfiguration>`;

const event = (eventName: string, key: string) => ({
  Records: [{ eventName, s3: { bucket: { name: 'uploads' }, object: { key, size: 3 } } }],
});

/** Sets the configuration through `handle`, as a PUT ?notification request would. */
async function configured(sent: [string, string][]): Promise<BucketNotifications> {
  const notifications = new BucketNotifications(
    async (queue, body) => void sent.push([queue, body]),
    (error) => {
      throw error;
    },
  );
  const { PassThrough } = await import('node:stream');
  const req = Object.assign(new PassThrough(), { url: '/uploads?notification', method: 'PUT' });
  let ended: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const res = { writeHead: () => undefined, end: () => ended(), destroy: () => ended() };
  expect(notifications.handle(req as never, res as never)).toBe(true);
  req.end(configuration);
  await done;
  return notifications;
}

describe('S3 notifications of the emulated bucket', () => {
  it('reads the queue configurations of a notification configuration', () => {
    expect(parseQueueConfigurations(configuration)).toEqual([
      {
        queueArn: 'arn:aws:sqs:us-east-1:000000000000:jobs',
        events: ['s3:ObjectCreated:*'],
        prefix: 'incoming/',
        suffix: '',
      },
      {
        queueArn: 'arn:aws:sqs:us-east-1:000000000000:pdfs',
        events: ['s3:ObjectCreated:Put'],
        prefix: '',
        suffix: '.pdf',
      },
    ]);
  });

  it('sends a test event to each queue, then each matching object event, its key encoded as S3 does', async () => {
    const sent: [string, string][] = [];
    const notifications = await configured(sent);
    expect(sent.map(([queue, body]) => [queue, JSON.parse(body).Event])).toEqual([
      ['jobs', 's3:TestEvent'],
      ['pdfs', 's3:TestEvent'],
    ]);
    sent.length = 0;
    notifications.deliver(event('ObjectCreated:Put', 'incoming/acme:prod/job/a b.md'));
    notifications.deliver(event('ObjectCreated:Copy', 'other/a.pdf'));
    notifications.deliver(event('ObjectRemoved:Delete', 'incoming/gone.md'));
    notifications.deliver(event('ObjectCreated:Put', 'other/x.pdf'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map(([queue, body]) => [queue, JSON.parse(body).Records[0].s3.object.key])).toEqual([
      ['jobs', 'incoming/acme%3Aprod/job/a+b.md'],
      ['pdfs', 'other/x.pdf'],
    ]);
  });

  it('leaves other requests to the emulator', () => {
    const notifications = new BucketNotifications(
      async () => undefined,
      () => undefined,
    );
    for (const url of ['/uploads', '/uploads/key?notification', '/uploads?acl']) {
      expect(notifications.handle({ url, method: 'PUT' } as never, {} as never), url).toBe(false);
    }
  });
});
