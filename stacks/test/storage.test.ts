import { buckets, tables } from '@tessera/platform/resources';
import { type BucketKey, createTable, Storage, type TableKey } from '@tessera/stacks';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

const tableKeys = Object.keys(tables) as TableKey[];
const bucketKeys = Object.keys(buckets) as BucketKey[];

describe('Storage', () => {
  let stack: Stack;
  let storage: Storage;
  let template: Template;
  const logicalId = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

  beforeAll(() => {
    stack = new Stack(apps.create(), 'StorageTest');
    storage = new Storage(stack, 'Storage');
    const consumer = new lambda.Function(stack, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => {};'),
    });
    storage.bind(consumer, {
      tables: Object.fromEntries(tableKeys.map((key) => [key, 'readWrite'])),
      buckets: Object.fromEntries(bucketKeys.map((key) => [key, 'readWrite'])),
    });
    const reader = new lambda.Function(stack, 'Reader', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.read',
      code: lambda.Code.fromInline('exports.read = async () => {};'),
    });
    storage.bind(reader, { tables: { tenants: 'read' }, buckets: { uploads: 'read' } });
    template = Template.fromStack(stack);
  });

  it('creates every table of the shared definition with its string keys, on demand and recoverable', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', tableKeys.length);
    for (const key of tableKeys) {
      const definition: { partitionKey: string; sortKey?: string } = tables[key];
      const keys = [{ name: definition.partitionKey, type: 'HASH' }];
      if (definition.sortKey) keys.push({ name: definition.sortKey, type: 'RANGE' });
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: keys.map((k) => ({ AttributeName: k.name, KeyType: k.type })),
        AttributeDefinitions: keys.map((k) => ({ AttributeName: k.name, AttributeType: 'S' })),
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
    }
  });

  it('sets the TTL attribute of a table only when its definition has one', () => {
    const withTtl = Object.values(tables).filter((table) => 'ttlAttribute' in table && table.ttlAttribute);
    const found = template.findResources('AWS::DynamoDB::Table', {
      Properties: { TimeToLiveSpecification: Match.objectLike({ Enabled: true }) },
    });
    expect(Object.keys(found)).toHaveLength(withTtl.length);
    const withoutTtl = template.findResources('AWS::DynamoDB::Table', {
      Properties: { TimeToLiveSpecification: Match.absent() },
    });
    expect(Object.keys(withoutTtl)).toHaveLength(Object.keys(tables).length - withTtl.length);
    const other = new Stack(apps.create(), 'TtlTest');
    createTable(other, 'Leases', {
      name: 'leases',
      envVar: 'LEASES',
      partitionKey: 'id',
      ttlAttribute: 'expires_at',
    });
    Template.fromStack(other).hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
    });
  });

  it('creates every bucket encrypted, blocking public access and denying requests without TLS', () => {
    template.resourceCountIs('AWS::S3::Bucket', bucketKeys.length);
    template.allResourcesProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    for (const key of bucketKeys) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalId(storage.buckets[key]) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('lets browsers send presigned PUTs to the uploads bucket from any origin, and no other request', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          {
            AllowedMethods: ['PUT'],
            AllowedOrigins: ['*'],
            AllowedHeaders: ['*'],
            ExposedHeaders: ['ETag'],
            MaxAge: 3600,
          },
        ],
      },
    });
    const withCors = Object.values(template.findResources('AWS::S3::Bucket')).filter(
      (resource) => resource.Properties.CorsConfiguration,
    );
    expect(withCors).toHaveLength(1);
  });

  it('keeps every table and bucket when the stack is deleted', () => {
    for (const type of ['AWS::DynamoDB::Table', 'AWS::S3::Bucket']) {
      const resources = Object.values(template.findResources(type));
      expect(resources.length).toBeGreaterThan(0);
      for (const resource of resources) {
        expect(resource).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      }
    }
  });

  it('sets the envVar of every table and bucket on a bound function to its physical name', () => {
    const variables: Record<string, unknown> = {};
    for (const key of tableKeys) variables[tables[key].envVar] = { Ref: logicalId(storage.tables[key]) };
    for (const key of bucketKeys) variables[buckets[key].envVar] = { Ref: logicalId(storage.buckets[key]) };
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Environment: { Variables: variables },
    });
  });

  it('grants a function read-only access where that is all it is given, and names only those stores', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes('ReaderServiceRole'))
      .flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as { Action: string[]; Resource: unknown }[],
      );
    const actions = statements.flatMap((statement) => statement.Action);
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions).toContain('s3:GetObject*');
    expect(actions.filter((action) => /Put|Delete|Update|Write|Abort/.test(action))).toEqual([]);
    const resources = JSON.stringify(statements.map((statement) => statement.Resource));
    expect(resources).toContain(logicalId(storage.tables.tenants));
    expect(resources).toContain(logicalId(storage.buckets.uploads));
    expect(resources).not.toContain(logicalId(storage.tables.organizations));
    expect(resources).not.toContain(logicalId(storage.buckets.search));
    const reader = Object.values(template.findResources('AWS::Lambda::Function')).find(
      (fn) => fn.Properties.Handler === 'index.read',
    )!;
    expect(Object.keys(reader.Properties.Environment.Variables).sort()).toEqual(
      [tables.tenants.envVar, buckets.uploads.envVar].sort(),
    );
  });

  it('grants a bound function read/write on every table and bucket', () => {
    // A role's long policy spills into managed policies (CDK's OverflowPolicy): they count as well.
    const statements = [
      ...Object.values(template.findResources('AWS::IAM::Policy')),
      ...Object.values(template.findResources('AWS::IAM::ManagedPolicy')),
    ].flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: string[]; Resource: unknown }[],
    );
    const granted = (action: string, id: string) =>
      statements.some((s) => s.Action.includes(action) && JSON.stringify(s.Resource).includes(`"${id}"`));
    for (const key of tableKeys) {
      expect(granted('dynamodb:PutItem', logicalId(storage.tables[key])), key).toBe(true);
      expect(granted('dynamodb:Query', logicalId(storage.tables[key])), key).toBe(true);
    }
    for (const key of bucketKeys) {
      expect(granted('s3:PutObject', logicalId(storage.buckets[key])), key).toBe(true);
      expect(granted('s3:GetObject*', logicalId(storage.buckets[key])), key).toBe(true);
    }
  });
});
