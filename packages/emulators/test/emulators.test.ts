import { describe, expect, it } from 'vitest';
import { routeOf } from '../src/emulators';

describe('routeOf', () => {
  it('routes DynamoDB and SQS by their target header and everything else to S3', () => {
    expect(routeOf({ 'x-amz-target': 'DynamoDB_20120810.GetItem' })).toBe('dynamodb');
    expect(routeOf({ 'x-amz-target': 'AmazonSQS.SendMessage' })).toBe('sqs');
    expect(routeOf({ 'content-type': 'application/x-www-form-urlencoded' })).toBe('sqs');
    expect(routeOf({ 'content-type': 'application/octet-stream' })).toBe('s3');
    expect(routeOf({})).toBe('s3');
  });

  it('routes a signed request by the service its credential scope names, whatever its content type', () => {
    const signed = (service: string) =>
      `AWS4-HMAC-SHA256 Credential=S3RVER/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`;
    expect(routeOf({ authorization: signed('sqs') })).toBe('sqs');
    expect(routeOf({ authorization: signed('dynamodb') })).toBe('dynamodb');
    // A presigned PUT of a form-encoded file is S3's, not the SQS query protocol's.
    const presigned =
      '/tessera-local-uploads/incoming/a.md?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=S3RVER%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=0';
    expect(routeOf({ 'content-type': 'application/x-www-form-urlencoded' }, presigned)).toBe('s3');
    expect(
      routeOf({ 'content-type': 'application/x-www-form-urlencoded', authorization: signed('s3') }),
    ).toBe('s3');
  });
});
