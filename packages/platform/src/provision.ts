/**
 * Creates the tables, queues and buckets of the shared resource definition and the buckets' notifications
 * to their queues, as the stacks do in AWS. Idempotent: existing resources are left alone and notifications
 * set again, so every start may run it.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  PutBucketCorsCommand,
  PutBucketNotificationConfigurationCommand,
} from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { dynamoClient, s3Client, sqsClient } from './clients';
import { resourceName } from './env';
import { type BucketDef, bucketNotifications, buckets, queues, type TableDef, tables } from './resources';

function tableInput(def: TableDef): CreateTableCommandInput {
  const keys: { name: string; type: 'HASH' | 'RANGE' }[] = [{ name: def.partitionKey, type: 'HASH' }];
  if (def.sortKey) keys.push({ name: def.sortKey, type: 'RANGE' });
  return {
    TableName: resourceName(def),
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keys.map((key) => ({ AttributeName: key.name, AttributeType: 'S' })),
    KeySchema: keys.map((key) => ({ AttributeName: key.name, KeyType: key.type })),
  };
}

async function createTable(def: TableDef): Promise<void> {
  try {
    await dynamoClient().send(new CreateTableCommand(tableInput(def)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  if (def.ttlAttribute) {
    // Not every emulator implements TTL settings; readers filter expired items anyway.
    await dynamoClient()
      .send(
        new UpdateTimeToLiveCommand({
          TableName: resourceName(def),
          TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true },
        }),
      )
      .catch(() => undefined);
  }
}

async function createQueues(): Promise<void> {
  for (const def of Object.values(queues)) {
    let redrivePolicy: string | undefined;
    if (def.deadLetter) {
      const dead = await sqsClient().send(
        new CreateQueueCommand({
          QueueName: resourceName(def.deadLetter),
          Attributes: { VisibilityTimeout: String(def.deadLetter.visibilityTimeoutSeconds) },
        }),
      );
      const attributes = await sqsClient().send(
        new GetQueueAttributesCommand({ QueueUrl: dead.QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      redrivePolicy = JSON.stringify({
        deadLetterTargetArn: attributes.Attributes?.QueueArn,
        maxReceiveCount: def.deadLetter.maxReceiveCount,
      });
    }
    await sqsClient().send(
      new CreateQueueCommand({
        QueueName: resourceName(def),
        Attributes: {
          VisibilityTimeout: String(def.visibilityTimeoutSeconds),
          ...(redrivePolicy ? { RedrivePolicy: redrivePolicy } : {}),
        },
      }),
    );
  }
}

async function createBuckets(): Promise<void> {
  for (const def of Object.values<BucketDef>(buckets)) {
    try {
      await s3Client().send(new CreateBucketCommand({ Bucket: resourceName(def) }));
    } catch (error) {
      const name = (error as Error).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
    }
    if (def.cors) {
      await s3Client().send(
        new PutBucketCorsCommand({
          Bucket: resourceName(def),
          CORSConfiguration: {
            CORSRules: [
              {
                AllowedMethods: def.cors.allowedMethods,
                AllowedOrigins: def.cors.allowedOrigins,
                AllowedHeaders: ['*'],
                ExposeHeaders: def.cors.exposedHeaders,
                MaxAgeSeconds: 3600,
              },
            ],
          },
        }),
      );
    }
  }
}

async function queueArn(name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqsClient().send(new GetQueueUrlCommand({ QueueName: name }));
  const { Attributes } = await sqsClient().send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl!, arn: Attributes!.QueueArn! };
}

/**
 * Each bucket's object-created notifications to its queues (presigned uploads start their job when the
 * object lands), and each queue's policy letting S3 send to it for that bucket. A bucket's configuration is
 * set whole, so setting it again changes nothing.
 */
async function configureNotifications(): Promise<void> {
  for (const bucket of new Set(bucketNotifications.map((notification) => notification.bucket))) {
    const notifications = bucketNotifications.filter((notification) => notification.bucket === bucket);
    const bucketName = resourceName(buckets[bucket]);
    const configurations = [];
    for (const notification of notifications) {
      const queue = await queueArn(resourceName(queues[notification.queue]));
      await sqsClient().send(
        new SetQueueAttributesCommand({
          QueueUrl: queue.url,
          Attributes: {
            Policy: JSON.stringify({
              Version: '2012-10-17',
              Statement: [
                {
                  Sid: `s3-${bucketName}`,
                  Effect: 'Allow',
                  Principal: { Service: 's3.amazonaws.com' },
                  Action: 'sqs:SendMessage',
                  Resource: queue.arn,
                  Condition: { ArnLike: { 'aws:SourceArn': `arn:aws:s3:::${bucketName}` } },
                },
              ],
            }),
          },
        }),
      );
      configurations.push({
        Id: `${notification.queue}-${notification.prefix.replace(/[^A-Za-z0-9-]/g, '')}`,
        QueueArn: queue.arn,
        Events: ['s3:ObjectCreated:*' as const],
        Filter: { Key: { FilterRules: [{ Name: 'prefix' as const, Value: notification.prefix }] } },
      });
    }
    await s3Client().send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: bucketName,
        NotificationConfiguration: { QueueConfigurations: configurations },
      }),
    );
  }
}

export async function provisionResources(): Promise<void> {
  await Promise.all([...Object.values(tables).map(createTable), createQueues(), createBuckets()]);
  await configureNotifications();
}
