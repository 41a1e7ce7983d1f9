/**
 * Everything a runtime stores, read from outside it: every item of every DynamoDB table, every object of
 * every bucket, the message counts of every queue (through its AWS endpoint), and every file of the search
 * backend's directory with its size. Two snapshots are equal when nothing was written in between.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';

export interface StoreReader {
  snapshot(): Promise<Record<string, string>>;
}

function files(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const entry of entries.sort()) {
      const full = path.join(dir, entry);
      const stat = statSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(full);
      else found.push(`${path.relative(root, full)} ${stat.size}`);
    }
  };
  walk(root);
  return found;
}

/** A reader of the stores behind `endpoint` (one endpoint for every service) and of `searchDir`. */
export function storeReader(endpoint: string, searchDir: string): StoreReader {
  const config = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  };
  const dynamo = new DynamoDBClient(config);
  const s3 = new S3Client({ ...config, forcePathStyle: true });
  const sqs = new SQSClient(config);
  return {
    async snapshot() {
      const state: Record<string, string> = {};
      const { TableNames = [] } = await dynamo.send(new ListTablesCommand({}));
      for (const table of TableNames) {
        const items: string[] = [];
        let start: Record<string, unknown> | undefined;
        do {
          const page = await dynamo.send(
            new ScanCommand({ TableName: table, ExclusiveStartKey: start as never }),
          );
          for (const item of page.Items ?? []) items.push(JSON.stringify(item, Object.keys(item).sort()));
          start = page.LastEvaluatedKey;
        } while (start);
        state[`dynamodb ${table}`] = items.sort().join('\n');
      }
      const { Buckets = [] } = await s3.send(new ListBucketsCommand({}));
      for (const bucket of Buckets) {
        const objects: string[] = [];
        let token: string | undefined;
        do {
          const page = await s3.send(
            new ListObjectsV2Command({ Bucket: bucket.Name!, ContinuationToken: token }),
          );
          for (const object of page.Contents ?? [])
            objects.push(`${object.Key} ${object.Size} ${object.ETag}`);
          token = page.NextContinuationToken;
        } while (token);
        state[`s3 ${bucket.Name}`] = objects.sort().join('\n');
      }
      const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
      for (const url of QueueUrls) {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        state[`sqs ${url.split('/').pop()}`] = JSON.stringify(Attributes);
      }
      state['search backend'] = files(searchDir).join('\n');
      return state;
    },
  };
}

/** The keys whose values differ between two snapshots, with a short view of what changed. */
export function differences(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed: string[] = [];
  for (const key of keys) {
    if (before[key] === after[key]) continue;
    const was = new Set((before[key] ?? '').split('\n'));
    const now = new Set((after[key] ?? '').split('\n'));
    const added = [...now].filter((line) => !was.has(line)).map((line) => `+ ${line.slice(0, 300)}`);
    const removed = [...was].filter((line) => !now.has(line)).map((line) => `- ${line.slice(0, 300)}`);
    changed.push(`${key}\n${[...removed, ...added].slice(0, 6).join('\n')}`);
  }
  return changed;
}
