/**
 * AWS clients, created once on first use. The SDK reads `AWS_ENDPOINT_URL` (and the per-service
 * `AWS_ENDPOINT_URL_DYNAMODB`, `_S3`, `_SQS`) itself, so emulators, LocalStack and AWS differ only by endpoint.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hasCustomEndpoint, platformEnv } from './env';

let dynamo: DynamoDBClient | undefined;
let documentBase: DynamoDBClient | undefined;
let documents: DynamoDBDocumentClient | undefined;
let s3: S3Client | undefined;
let sqs: SQSClient | undefined;

/**
 * The plain DynamoDB client, for hot paths that marshal their own items. It resolves its middleware stack
 * once per command type instead of on every request, which the document client cannot do (it adds its
 * marshalling as middleware), and it has no logger middleware: the SDK's logger is a no-op unless one is
 * configured, yet that middleware copies every input and output to filter them for the log. Under a stream
 * of small requests the two are about a third of the SDK's CPU.
 */
export function dynamoClient(): DynamoDBClient {
  if (!dynamo) {
    dynamo = new DynamoDBClient({ region: platformEnv.awsRegion, maxAttempts: 3, cacheMiddleware: true });
    dynamo.middlewareStack.remove('loggerMiddleware');
  }
  return dynamo;
}

export function documentClient(): DynamoDBDocumentClient {
  if (!documentBase) {
    documentBase = new DynamoDBClient({ region: platformEnv.awsRegion, maxAttempts: 3 });
    // As for the plain client: the logger middleware copies every input and output for a no-op logger.
    documentBase.middlewareStack.remove('loggerMiddleware');
  }
  documents ??= DynamoDBDocumentClient.from(documentBase, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return documents;
}

export function s3Client(): S3Client {
  s3 ??= new S3Client({
    region: platformEnv.awsRegion,
    // Emulators and LocalStack serve buckets by path, not by virtual host.
    forcePathStyle: hasCustomEndpoint('S3'),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return s3;
}

export function sqsClient(): SQSClient {
  // Behind an emulator or LocalStack the queue URL's host is not the endpoint; send every call to the endpoint.
  sqs ??= new SQSClient({ region: platformEnv.awsRegion, useQueueUrlAsEndpoint: !hasCustomEndpoint('SQS') });
  return sqs;
}
