/** Probes of the AWS services Tenancy depends on, for `/health`. */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import type { Health } from '@tessera/api';
import { dynamoClient, s3Client, sqsClient } from './clients';
import { resourceName } from './env';
import { buckets, queues, tables } from './resources';

export type ServiceHealth = Health.ServiceHealth;

/** Runs a probe with a deadline; never throws. */
export async function probe(check: () => Promise<unknown>, timeoutMs = 2000): Promise<ServiceHealth> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'ok', latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      status: 'unavailable',
      latency_ms: Math.round(performance.now() - started),
      error: (error as Error).message || (error as Error).name,
    };
  } finally {
    clearTimeout(timer);
  }
}

export async function awsServicesHealth(): Promise<Record<'dynamodb' | 's3' | 'sqs', ServiceHealth>> {
  const [dynamodb, s3, sqs] = await Promise.all([
    probe(() => dynamoClient().send(new DescribeTableCommand({ TableName: resourceName(tables.tenants) }))),
    probe(() => s3Client().send(new HeadBucketCommand({ Bucket: resourceName(buckets.uploads) }))),
    probe(() => sqsClient().send(new GetQueueUrlCommand({ QueueName: resourceName(queues.ingestion) }))),
  ]);
  return { dynamodb, s3, sqs };
}
