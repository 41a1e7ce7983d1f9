/** DynamoDB tables and S3 buckets of the shared resource definition (`@tessera/platform`). */
import {
  type BucketDef,
  buckets as bucketDefinitions,
  type TableDef,
  tables as tableDefinitions,
} from '@tessera/platform/resources';
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { mapDefinitions, pascalCase } from './definitions';
import type { Binding, BucketKey, DataAccess, StoreGrants, TableKey } from './grants';

export type { BucketKey, TableKey } from './grants';

/** A table as the definition describes it: string keys, on-demand, recoverable, kept when the stack goes. */
export function createTable(scope: Construct, id: string, definition: TableDef): dynamodb.Table {
  const key = (name: string) => ({ name, type: dynamodb.AttributeType.STRING });
  return new dynamodb.Table(scope, id, {
    partitionKey: key(definition.partitionKey),
    sortKey: definition.sortKey ? key(definition.sortKey) : undefined,
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: definition.ttlAttribute,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/**
 * A private, encrypted bucket reachable only over TLS, kept when the stack goes; with the definition's
 * cross-origin rule when browsers write to it (presigned uploads).
 */
export function createBucket(scope: Construct, id: string, definition?: BucketDef): s3.Bucket {
  const cors = definition?.cors;
  return new s3.Bucket(scope, id, {
    cors: cors && [
      {
        allowedMethods: cors.allowedMethods.map((method) => s3.HttpMethods[method]),
        allowedOrigins: cors.allowedOrigins,
        allowedHeaders: ['*'],
        exposedHeaders: cors.exposedHeaders,
        maxAge: 3600,
      },
    ],
    encryption: s3.BucketEncryption.S3_MANAGED,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

export class Storage extends Construct {
  readonly tables: Record<TableKey, dynamodb.Table>;
  readonly buckets: Record<BucketKey, s3.Bucket>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.tables = mapDefinitions(tableDefinitions, (key, definition: TableDef) =>
      createTable(this, `${pascalCase(key)}Table`, definition),
    );
    this.buckets = mapDefinitions(bucketDefinitions, (key, definition: BucketDef) =>
      createBucket(this, `${pascalCase(key)}Bucket`, definition),
    );
  }

  /**
   * Grants `fn` what `grants` names of the tables and buckets, and sets the `envVar`s of those to their
   * physical names (the others stay out of its environment). Without `grant` only the names are set (its
   * role was granted already).
   */
  bind(fn: Binding, grants: Pick<StoreGrants, 'tables' | 'buckets'>, grant = true): void {
    for (const [key, access] of Object.entries(grants.tables ?? {}) as [TableKey, DataAccess][]) {
      const table = this.tables[key];
      if (grant && access === 'readWrite') table.grantReadWriteData(fn);
      else if (grant) table.grantReadData(fn);
      fn.addEnvironment(tableDefinitions[key].envVar, table.tableName);
    }
    for (const [key, access] of Object.entries(grants.buckets ?? {}) as [BucketKey, DataAccess][]) {
      const bucket = this.buckets[key];
      if (grant && access === 'readWrite') bucket.grantReadWrite(fn);
      else if (grant) bucket.grantRead(fn);
      fn.addEnvironment(bucketDefinitions[key].envVar, bucket.bucketName);
    }
  }
}
