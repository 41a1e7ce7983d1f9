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
});
