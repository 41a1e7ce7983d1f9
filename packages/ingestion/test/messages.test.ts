import { describe, expect, it } from 'vitest';
import { jobsOfMessage } from '../src';

const s3Event = (eventName: string, key: string) =>
  JSON.stringify({ Records: [{ eventName, s3: { bucket: { name: 'uploads' }, object: { key, size: 3 } } }] });

describe('jobsOfMessage', () => {
  it('reads a job message', () => {
    expect(jobsOfMessage(JSON.stringify({ job_id: 'ingest_0123456789abcdef' }))).toEqual([
      'ingest_0123456789abcdef',
    ]);
  });

  it('reads the job of a presigned upload from an S3 notification, decoding the key as S3 encodes it', () => {
    const key = 'incoming/acme%3Aacme/ingest_0123456789abcdef/my+notes%28v2%29.md';
    expect(jobsOfMessage(s3Event('ObjectCreated:Put', key))).toEqual(['ingest_0123456789abcdef']);
  });

  it('ignores removals, keys outside incoming/ and S3 test events', () => {
    expect(jobsOfMessage(s3Event('ObjectRemoved:Delete', 'incoming/a/ingest_0123456789abcdef/x.md'))).toEqual(
      [],
    );
    expect(jobsOfMessage(s3Event('ObjectCreated:Put', 'jobs/a/ingest_0123456789abcdef/0'))).toEqual([]);
    expect(jobsOfMessage(JSON.stringify({ Event: 's3:TestEvent', Bucket: 'uploads' }))).toEqual([]);
  });

  it('refuses a message it cannot read, so it is retried and dead-lettered rather than dropped', () => {
    expect(() => jobsOfMessage('not json')).toThrow(/not JSON/);
    expect(() => jobsOfMessage(JSON.stringify({ hello: 'world' }))).toThrow(
      /neither a job nor an S3 notification/,
    );
  });
});
