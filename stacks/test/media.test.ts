import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { queueWorkers, routes, schedules, splitHandler, stepFunctions } from '@tessera/functions/routes';
import {
  composeTessera,
  deployMediaSettings,
  type FunctionSettings,
  InferenceSidecars,
  MEDIA_WORKER_CONTAINER,
  MediaWorker,
  MODULE_GRANTS,
  type Queues,
  REPOSITORY_CONTEXT,
  SIDECARS,
  type Storage,
  Workers,
} from '@tessera/stacks';
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);
const repoRoot = path.resolve(import.meta.dirname, '../..');

const EMBEDDINGS_KEY_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:embeddings-a1b2c3';
const settings: FunctionSettings = {
  environment: {
    TESSERA_EMBEDDINGS_URL: 'https://embeddings.example/v1',
    TESSERA_LLM_BASE_URL: 'https://llm.example/v1',
  },
  secrets: {
    TESSERA_EMBEDDINGS_API_KEY: { secretArn: EMBEDDINGS_KEY_ARN },
    TESSERA_LLM_API_KEY: { parameterName: '/tessera/test/llm-key' },
  },
};

describe('MediaWorker and InferenceSidecars', () => {
  let stack: Stack;
  let media: MediaWorker;
  let sidecars: InferenceSidecars;
  let workers: Workers;
  let template: Template;
  let storage: Storage;
  let queues: Queues;

  beforeAll(() => {
    const composed = compose(apps.create(), 'MediaTest');
    stack = composed.stack;
    storage = composed.storage;
    queues = composed.queues;
    workers = new Workers(stack, 'Workers', composed);
    media = new MediaWorker(stack, 'Media', { ...composed, stage: 'test', settings });
    const image = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:latest');
    sidecars = new InferenceSidecars(stack, 'Inference', {
      cluster: media.cluster,
      vpc: media.vpc,
      clients: [media.securityGroup],
      images: { 'video-embedding': image, 'audio-embedding': image },
    });
    media.addEnvironment(sidecars.environment);
    media.launchFrom(workers.functions.get('ingestion-worker')!);
    template = Template.fromStack(stack);
  });

  it('runs the media worker on Fargate with disk for the spool, the stores and the sidecars’ endpoints', () => {
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      Cpu: '4096',
      Memory: '16384',
      EphemeralStorage: { SizeInGiB: 100 },
      RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [
        Match.objectLike({
          Name: MEDIA_WORKER_CONTAINER,
          StopTimeout: 120,
        }),
      ],
    });
    const definition = template.toJSON().Resources[logicalId(stack, media.taskDefinition)].Properties;
    const environment = Object.fromEntries(
      (definition.ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[]).map((v) => [
        v.Name,
        v.Value,
      ]),
    );
    expect(environment).toMatchObject({
      TESSERA_STAGE: 'test',
      AWS_REGION: { Ref: 'AWS::Region' },
      TESSERA_MEDIA_TASKS: 'none',
      TESSERA_MEDIA_SPOOL_DIR: '/spool',
      TESSERA_TRANSCRIPTION_URL: 'http://transcription.tessera.internal:8080/v1',
      TESSERA_TRANSCRIPTION_MODEL: 'whisper-large-v3-turbo',
      TESSERA_CAPTION_URL: 'http://captioning.tessera.internal:8000/v1',
      TESSERA_CAPTION_MODEL: 'qwen2.5-vl-3b',
      TESSERA_VIDEO_EMBED_URL: 'http://video-embedding.tessera.internal:8000',
      TESSERA_AUDIO_EMBED_URL: 'http://audio-embedding.tessera.internal:8000',
      TESSERA_TABLE_TENANTS: { Ref: logicalId(stack, storage.tables.tenants) },
      TESSERA_QUEUE_INGESTION: { 'Fn::GetAtt': [logicalId(stack, queues.queues.ingestion), 'QueueName'] },
    });
    // Its network: two zones picked by Fn::GetAZs (no lookup in the account), private subnets behind one NAT
    // gateway, S3 and DynamoDB through gateway endpoints.
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    template.resourceCountIs('AWS::EC2::Subnet', 4);
    template.hasResourceProperties('AWS::EC2::Subnet', {
      AvailabilityZone: { 'Fn::Select': [1, { 'Fn::GetAZs': '' }] },
      MapPublicIpOnLaunch: false,
    });
    for (const service of ['s3', 'dynamodb']) {
      template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
        VpcEndpointType: 'Gateway',
        ServiceName: { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, `.${service}`]] },
      });
    }
    // The worker's image is built from its Dockerfile in the repository.
    const worker = Object.values(template.findResources('AWS::ECS::TaskDefinition')).find((resource) =>
      JSON.stringify(resource).includes(MEDIA_WORKER_CONTAINER),
    );
    expect(JSON.stringify(worker)).toMatch(/cdk-hnb659fds-container-assets/);
  });

  it('tells the ingestion worker to hand media jobs to the task, with RunTask on it and PassRole of its roles only', () => {
    const fn = workers.functions.get('ingestion-worker')!;
    const properties = template.toJSON().Resources[logicalId(stack, fn)].Properties;
    expect(properties.Environment.Variables).toMatchObject({
      TESSERA_MEDIA_TOOLS: 'off',
      TESSERA_MEDIA_TASKS: 'ecs',
      TESSERA_MEDIA_CLUSTER: { 'Fn::GetAtt': [logicalId(stack, media.cluster), 'Arn'] },
      TESSERA_MEDIA_TASK_DEFINITION: { Ref: logicalId(stack, media.taskDefinition) },
      TESSERA_MEDIA_CONTAINER: MEDIA_WORKER_CONTAINER,
      TESSERA_MEDIA_SECURITY_GROUPS: { 'Fn::GetAtt': [logicalId(stack, media.securityGroup), 'GroupId'] },
    });
    expect(JSON.stringify(properties.Environment.Variables.TESSERA_MEDIA_SUBNETS)).toMatch(
      /privateSubnet1.*privateSubnet2/,
    );
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'ecs:RunTask',
            Resource: { Ref: logicalId(stack, media.taskDefinition) },
            Condition: {
              ArnEquals: { 'ecs:cluster': { 'Fn::GetAtt': [logicalId(stack, media.cluster), 'Arn'] } },
            },
          }),
          Match.objectLike({
            Action: 'iam:PassRole',
            Condition: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
          }),
        ]),
      },
    });
    // The other functions neither start it nor are told of it.
    const others = queueWorkers.filter((worker) => worker.name !== 'ingestion-worker');
    for (const worker of others) {
      const variables =
        template.toJSON().Resources[logicalId(stack, workers.functions.get(worker.name)!)].Properties
          .Environment.Variables;
      expect(variables.TESSERA_MEDIA_TASKS).toBeUndefined();
    }
  });

  it('gives the media worker’s task role what the ingestion worker may use, and only that', () => {
    const role = logicalId(stack, media.taskDefinition.taskRole as never);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(role),
    );
    const statements = policies.flatMap(
      (policy) =>
        policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );
    const actionsOn = (resource: { node: unknown }) => {
      const id = logicalId(stack, resource as never);
      return statements
        .filter((statement) => JSON.stringify(statement.Resource).includes(`"${id}"`))
        .flatMap((statement) => statement.Action);
    };
    const grants = MODULE_GRANTS['workers/ingestion']!;
    const environment = JSON.stringify(
      template.toJSON().Resources[logicalId(stack, media.taskDefinition)].Properties.ContainerDefinitions[0]
        .Environment,
    );
    for (const [key, table] of Object.entries(storage.tables)) {
      const access = grants.tables?.[key as keyof typeof grants.tables];
      const actions = actionsOn(table);
      if (!access) expect(actions, key).toEqual([]);
      else {
        expect(actions, key).toContain('dynamodb:GetItem');
        expect(actions.includes('dynamodb:PutItem'), key).toBe(access === 'readWrite');
      }
      expect(environment.includes(`"${logicalId(stack, table)}"`), key).toBe(Boolean(access));
    }
    for (const [key, bucket] of Object.entries(storage.buckets)) {
      const access = grants.buckets?.[key as keyof typeof grants.buckets];
      const actions = actionsOn(bucket);
      if (!access) expect(actions, key).toEqual([]);
      else expect(actions.includes('s3:PutObject'), key).toBe(access === 'readWrite');
    }
    expect(actionsOn(queues.queues.ingestion)).toContain('sqs:SendMessage');
    // The search index is where the functions find it.
    expect(environment).toContain('TESSERA_SEARCH_URI');
  });

  it('gives the media worker the deploy settings, and its keys as references it alone may read', () => {
    const definition = template.toJSON().Resources[logicalId(stack, media.taskDefinition)].Properties;
    const environment = Object.fromEntries(
      (definition.ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[]).map((v) => [
        v.Name,
        v.Value,
      ]),
    );
    expect(environment).toMatchObject({
      TESSERA_EMBEDDINGS_URL: 'https://embeddings.example/v1',
      TESSERA_LLM_BASE_URL: 'https://llm.example/v1',
      TESSERA_EMBEDDINGS_API_KEY_SECRET_ARN: EMBEDDINGS_KEY_ARN,
      TESSERA_LLM_API_KEY_PARAMETER: '/tessera/test/llm-key',
    });
    expect(environment.TESSERA_EMBEDDINGS_API_KEY).toBeUndefined();
    expect(environment.TESSERA_LLM_API_KEY).toBeUndefined();
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: logicalId(stack, media.taskDefinition.taskRole as never) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: EMBEDDINGS_KEY_ARN },
          {
            Action: 'ssm:GetParameter',
            Effect: 'Allow',
            Resource: {
              'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':parameter/tessera/test/llm-key$')])],
            },
          },
        ]),
      },
    });
  });

  it('runs each GPU sidecar as an ECS service on GPU instances, found by name, reachable from the worker only', () => {
    template.resourceCountIs('AWS::ECS::Service', SIDECARS.length);
    template.hasResourceProperties('AWS::ServiceDiscovery::PrivateDnsNamespace', {
      Name: 'tessera.internal',
    });
    for (const name of SIDECARS) {
      template.hasResourceProperties('AWS::ServiceDiscovery::Service', {
        Name: name,
        DnsConfig: { DnsRecords: [{ Type: 'A', TTL: 60 }] },
      });
    }
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({
        InstanceType: 'g5.xlarge',
        ImageId: {
          Ref: Match.stringLikeRegexp('SsmParameterValueawsserviceecsoptimizedamiamazonlinux2023gpu'),
        },
        MetadataOptions: Match.objectLike({ HttpTokens: 'required' }),
      }),
    });
    template.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', {
      MinSize: '0',
      MaxSize: String(SIDECARS.length),
    });
    template.hasResourceProperties('AWS::ECS::CapacityProvider', {
      AutoScalingGroupProvider: Match.objectLike({ ManagedScaling: Match.objectLike({ Status: 'ENABLED' }) }),
    });
    // One GPU per sidecar task: Infinity holds it for the embedding sidecars, beside the contract server.
    const gpuTasks = Object.values(template.findResources('AWS::ECS::TaskDefinition')).filter((resource) =>
      JSON.stringify(resource).includes('"Type":"GPU"'),
    );
    expect(gpuTasks).toHaveLength(SIDECARS.length);
    for (const task of gpuTasks) {
      const containers = task.Properties.ContainerDefinitions as {
        ResourceRequirements?: { Type: string; Value: string }[];
      }[];
      expect(containers.flatMap((c) => c.ResourceRequirements ?? [])).toEqual([{ Type: 'GPU', Value: '1' }]);
    }
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      IpProtocol: 'tcp',
      FromPort: 8080,
      ToPort: 8080,
      SourceSecurityGroupId: { 'Fn::GetAtt': [logicalId(stack, media.securityGroup), 'GroupId'] },
    });
    // The embedding sidecars run Infinity beside the contract server, with the model and its revision.
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: Match.arrayWith([
        Match.objectLike({
          Name: 'infinity',
          Command: [
            'v2',
            '--model-id',
            'openai/clip-vit-large-patch14',
            '--revision',
            'main',
            '--port',
            '7997',
          ],
        }),
        Match.objectLike({
          Name: 'video-embedding',
          Environment: Match.arrayWith([{ Name: 'EMBED_MODEL', Value: 'openai/clip-vit-large-patch14' }]),
        }),
      ]),
    });
  });
});

describe('composeTessera with media settings', () => {
  const resourcesOf = (media: ReturnType<typeof deployMediaSettings>) => {
    const stack = new Stack(apps.create(), 'ComposeMediaTest');
    composeTessera(stack, { stage: 'test', media });
    return Template.fromStack(stack);
  };

  it('runs the media worker on Fargate by default and no GPU sidecar', () => {
    const template = resourcesOf(deployMediaSettings(undefined, {}));
    template.resourceCountIs('AWS::ECS::Cluster', 1);
    template.resourceCountIs('AWS::ECS::Service', 0);
    template.resourceCountIs('AWS::AutoScaling::AutoScalingGroup', 0);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ TESSERA_MEDIA_TASKS: 'ecs', TESSERA_MEDIA_TOOLS: 'off' }),
      },
    });
  });

  it('runs the sidecars it is told to, on the instance type it is given, and no media worker when it is off', () => {
    const template = resourcesOf(
      deployMediaSettings(undefined, {
        TESSERA_GPU_SIDECARS: 'transcription, captioning',
        TESSERA_GPU_INSTANCE_TYPE: 'g6.xlarge',
      }),
    );
    template.resourceCountIs('AWS::ECS::Service', 2);
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ InstanceType: 'g6.xlarge' }),
    });
    const off = resourcesOf(deployMediaSettings(undefined, { TESSERA_MEDIA_WORKER: 'off' }));
    off.resourceCountIs('AWS::ECS::Cluster', 0);
    off.resourceCountIs('AWS::EC2::VPC', 0);
  });

  /**
   * CloudFormation refuses a stack of more than 500 resources. A function, integration and permission per
   * handler module rather than per route leaves a new route one resource (its API route) and a new module
   * about five: the stack must keep this much of the limit free for what is still to come.
   */
  const HEADROOM = 100;

  it(`keeps ${HEADROOM} of CloudFormation's 500 resources free with every GPU sidecar, and repeats no grant`, () => {
    const counts: string[] = [];
    for (const [label, environment] of [
      ['default', {}],
      ['every GPU sidecar', { TESSERA_GPU_SIDECARS: SIDECARS.join(',') }],
    ] as const) {
      const template = resourcesOf(deployMediaSettings(undefined, environment));
      const resources = Object.values(template.toJSON().Resources) as { Type: string }[];
      const of = (type: string) => resources.filter((resource) => resource.Type === type).length;
      counts.push(
        `${label}: ${resources.length} resources (${of('AWS::Lambda::Function')} functions, ` +
          `${of('AWS::ApiGatewayV2::Route')} routes, ${of('AWS::ApiGatewayV2::Integration')} integrations, ` +
          `${of('AWS::Lambda::Permission')} permissions)`,
      );
      expect(resources.length, label).toBeLessThanOrEqual(500 - HEADROOM);
      // Roles shared by a module's routes are granted once: nothing spills into overflow policies.
      template.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
    }
    process.stdout.write(`Stack size: ${counts.join('; ')}\n`);
  });

  it('has a function per handler module of API routes, not per route', () => {
    const template = resourcesOf(deployMediaSettings(undefined, {}));
    const ours = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties.Runtime === 'nodejs22.x',
    );
    const apiModules = new Set(
      routes.filter((route) => !route.streaming).map((route) => splitHandler(route.handler).module),
    );
    expect(ours).toHaveLength(
      apiModules.size +
        routes.filter((route) => route.streaming).length +
        routes.filter((route) => route.longRun).length +
        1 + // the fallback
        queueWorkers.length +
        schedules.length +
        stepFunctions.length +
        1, // a scheduled job's run
    );
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', apiModules.size + 1);
  });

  it('refuses sidecars without the worker, an unknown sidecar, and one whose endpoint a setting also gives', () => {
    expect(() =>
      deployMediaSettings(undefined, { TESSERA_MEDIA_WORKER: 'off', TESSERA_GPU_SIDECARS: 'captioning' }),
    ).toThrow(/need TESSERA_MEDIA_WORKER=fargate/);
    expect(() => deployMediaSettings(undefined, { TESSERA_GPU_SIDECARS: 'ocr' })).toThrow(
      /ocr is not a sidecar/,
    );
    expect(() => deployMediaSettings(undefined, { TESSERA_MEDIA_WORKER: 'ecs' })).toThrow(
      /TESSERA_MEDIA_WORKER/,
    );
    expect(() =>
      deployMediaSettings(
        { environment: { TESSERA_TRANSCRIPTION_URL: 'https://asr.example/v1' } },
        { TESSERA_GPU_SIDECARS: 'transcription' },
      ),
    ).toThrow(/TESSERA_TRANSCRIPTION_URL is set and the transcription sidecar runs in the stack/);
  });
});

describe('containers/', () => {
  const names = readdirSync(path.join(repoRoot, 'containers'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

  it('has a Dockerfile for the media worker and each GPU sidecar', () => {
    expect(names.sort()).toEqual(['captioning', 'embedding-sidecar', 'media-worker', 'transcription']);
    for (const name of names)
      expect(existsSync(path.join(repoRoot, 'containers', name, 'Dockerfile'))).toBe(true);
  });

  it('copies only what exists in each Dockerfile’s context, and starts files that exist', () => {
    for (const name of names) {
      const context = REPOSITORY_CONTEXT.has(name) ? repoRoot : path.join(repoRoot, 'containers', name);
      const dockerfile = readFileSync(path.join(repoRoot, 'containers', name, 'Dockerfile'), 'utf8');
      for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
        for (const source of sources!.split(/\s+/))
          expect(existsSync(path.join(context, source)), `${name}: ${source}`).toBe(true);
      }
      for (const [, script] of dockerfile.matchAll(/"(containers\/[^"]+\.ts)"/g)) {
        expect(existsSync(path.join(repoRoot, script!)), `${name}: ${script}`).toBe(true);
      }
    }
  });
});
