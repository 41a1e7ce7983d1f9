/**
 * Media where a function cannot run it: the media worker (ffmpeg, OCR, speech detection) as a Fargate task
 * the ingestion worker starts for a job (a function's bundle has no media tools and 15 minutes at most), and
 * the GPU inference sidecars it calls (transcription, captioning, video and audio embeddings) as ECS services
 * on GPU instances, found by name in a private DNS namespace.
 */
import path from 'node:path';
import { Annotations, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as servicediscovery from 'aws-cdk-lib/aws-servicediscovery';
import { Construct } from 'constructs';
import { configsDir } from './bundle';
import { secretReference } from './functions';
import { MODULE_GRANTS, type StoreGrants } from './grants';
import type { Queues } from './queues';
import { checkSettings, type FunctionSettings, SIDECARS, type SidecarName } from './settings';
import type { Storage } from './storage';

export { SIDECARS, type SidecarName } from './settings';

/** The repository: the context the containers' Dockerfiles build from (its .dockerignore leaves out node_modules). */
export const repoRoot = path.dirname(configsDir);

/** The media worker's container in its task definition (the ingestion settings name it). */
export const MEDIA_WORKER_CONTAINER = 'media-worker';
/** Where the worker spools media: the task's ephemeral storage. */
const SPOOL_DIR = '/spool';

/** Containers built from the repository (our code); the others build from their own directory (upstream servers). */
export const REPOSITORY_CONTEXT = new Set(['media-worker', 'embedding-sidecar']);

/** A container image built from one of containers/ (deployed by `cdk deploy`; nothing is built at synth). */
export function containerImage(name: string): ecs.ContainerImage {
  return REPOSITORY_CONTEXT.has(name)
    ? ecs.ContainerImage.fromAsset(repoRoot, { file: `containers/${name}/Dockerfile` })
    : ecs.ContainerImage.fromAsset(path.join(repoRoot, 'containers', name));
}

/**
 * A VPC of two zones, each with a public subnet and a private one whose traffic leaves through one NAT gateway
 * (the GPU sidecars fetch their models; the worker reaches ECR, SQS and the endpoints), and gateway endpoints
 * for S3 and DynamoDB. Built from its CloudFormation resources with the zones as `Fn::GetAZs` picks because
 * ec2.Vpc looks the stack's zones up in the account when the stack has one (SST's do): `sst build` would then
 * call EC2 through the lookup role, and a synth would no longer be offline.
 */
export function mediaVpc(scope: Construct, id: string): ec2.IVpc {
  const node = new Construct(scope, id);
  const zones = [0, 1].map((index) => Fn.select(index, Fn.getAzs()));
  const vpc = new ec2.CfnVPC(node, 'Resource', {
    cidrBlock: '10.0.0.0/16',
    enableDnsHostnames: true,
    enableDnsSupport: true,
    tags: [{ key: 'Name', value: node.node.path }],
  });
  const gateway = new ec2.CfnInternetGateway(node, 'InternetGateway');
  const attachment = new ec2.CfnVPCGatewayAttachment(node, 'InternetGatewayAttachment', {
    vpcId: vpc.ref,
    internetGatewayId: gateway.ref,
  });
  const publicRoutes = new ec2.CfnRouteTable(node, 'PublicRoutes', { vpcId: vpc.ref });
  new ec2.CfnRoute(node, 'PublicDefaultRoute', {
    routeTableId: publicRoutes.ref,
    destinationCidrBlock: '0.0.0.0/0',
    gatewayId: gateway.ref,
  }).addDependency(attachment);
  const subnet = (
    name: string,
    index: number,
    cidr: string,
    routes: ec2.CfnRouteTable,
    isPublic: boolean,
  ) => {
    const created = new ec2.CfnSubnet(node, `${name}Subnet${index + 1}`, {
      vpcId: vpc.ref,
      availabilityZone: zones[index],
      cidrBlock: cidr,
      mapPublicIpOnLaunch: isPublic,
      tags: [{ key: 'Name', value: `${node.node.path}/${name}Subnet${index + 1}` }],
    });
    new ec2.CfnSubnetRouteTableAssociation(node, `${name}Subnet${index + 1}Routes`, {
      subnetId: created.ref,
      routeTableId: routes.ref,
    });
    return created;
  };
  const publicSubnets = [0, 1].map((i) => subnet('public', i, `10.0.${i * 64}.0/18`, publicRoutes, true));
  const address = new ec2.CfnEIP(node, 'NatAddress', { domain: 'vpc' });
  const nat = new ec2.CfnNatGateway(node, 'NatGateway', {
    subnetId: publicSubnets[0]!.ref,
    allocationId: address.attrAllocationId,
  });
  nat.addDependency(attachment);
  const privateRoutes = new ec2.CfnRouteTable(node, 'PrivateRoutes', { vpcId: vpc.ref });
  new ec2.CfnRoute(node, 'PrivateDefaultRoute', {
    routeTableId: privateRoutes.ref,
    destinationCidrBlock: '0.0.0.0/0',
    natGatewayId: nat.ref,
  });
  const privateSubnets = [0, 1].map((i) =>
    subnet('private', i, `10.0.${128 + i * 64}.0/18`, privateRoutes, false),
  );
  for (const [name, service] of [
    ['S3', 's3'],
    ['DynamoDB', 'dynamodb'],
  ] as const) {
    new ec2.CfnVPCEndpoint(node, `${name}Endpoint`, {
      vpcId: vpc.ref,
      serviceName: `com.amazonaws.${Stack.of(node).region}.${service}`,
      vpcEndpointType: 'Gateway',
      routeTableIds: [publicRoutes.ref, privateRoutes.ref],
    });
  }
  return ec2.Vpc.fromVpcAttributes(node, 'Attributes', {
    vpcId: vpc.ref,
    vpcCidrBlock: vpc.attrCidrBlock,
    availabilityZones: zones,
    publicSubnetIds: publicSubnets.map((s) => s.ref),
    publicSubnetRouteTableIds: publicSubnets.map(() => publicRoutes.ref),
    privateSubnetIds: privateSubnets.map((s) => s.ref),
    privateSubnetRouteTableIds: privateSubnets.map(() => privateRoutes.ref),
  });
}

export interface MediaWorkerProps {
  stage: string;
  storage: Storage;
  queues: Queues;
  /**
   * The deploy settings (inference and LLM endpoints, where their keys are kept): the worker runs the whole
   * ingestion pipeline, so it gets all of them; keys as references its entry resolves at start.
   */
  settings?: FunctionSettings;
  /** The stores it may use: default the ingestion worker's (MODULE_GRANTS['workers/ingestion']). */
  grants?: StoreGrants;
  /** Default: mediaVpc (two zones, one NAT gateway, gateway endpoints for S3 and DynamoDB). */
  vpc?: ec2.IVpc;
  /** Default: containers/media-worker/Dockerfile. */
  image?: ecs.ContainerImage;
  /** Fargate size: default 4 vCPU, 16 GiB (OCR and speech detection take one core each, ffmpeg the rest). */
  cpu?: number;
  memoryMiB?: number;
  /** Disk for the spooled file and the keyframes: default 100 GiB (Fargate allows 21 to 200). */
  ephemeralStorageGiB?: number;
}

export class MediaWorker extends Construct {
  readonly vpc: ec2.IVpc;
  readonly cluster: ecs.Cluster;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly container: ecs.ContainerDefinition;
  /** The tasks' security group: the sidecars let it in. */
  readonly securityGroup: ec2.SecurityGroup;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: MediaWorkerProps) {
    super(scope, id);
    this.vpc = props.vpc ?? mediaVpc(this, 'Vpc');
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc: this.vpc });
    this.securityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'Media worker tasks: out to AWS services and the inference sidecars',
      allowAllOutbound: true,
    });
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu ?? 4096,
      memoryLimitMiB: props.memoryMiB ?? 16_384,
      ephemeralStorageGiB: props.ephemeralStorageGiB ?? 100,
      runtimePlatform: {
        cpuArchitecture: ecs.CpuArchitecture.X86_64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    });
    this.container = this.taskDefinition.addContainer(MEDIA_WORKER_CONTAINER, {
      containerName: MEDIA_WORKER_CONTAINER,
      image: props.image ?? containerImage('media-worker'),
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'media-worker', logGroup: this.logGroup }),
      environment: {
        TESSERA_STAGE: props.stage,
        // Lambda sets it for the functions; a task gets it from its definition.
        AWS_REGION: Stack.of(this).region,
        TESSERA_MEDIA_SPOOL_DIR: SPOOL_DIR,
        // The worker runs what it is given: it has the media tools and hands nothing on.
        TESSERA_MEDIA_TASKS: 'none',
      },
      // A job that is stopped is handed back by its lease lapsing; two minutes lets a frame finish.
      stopTimeout: Duration.seconds(120),
    });
    // The stores the ingestion worker uses, with the names the functions get.
    const grants = props.grants ?? MODULE_GRANTS['workers/ingestion'];
    if (!grants) throw new Error('No grants declared for workers/ingestion (stacks/grants.ts)');
    const binding = {
      grantPrincipal: this.taskDefinition.taskRole,
      addEnvironment: (name: string, value: string) => this.container.addEnvironment(name, value),
    };
    props.storage.bind(binding, grants);
    props.queues.bind(binding, grants);
    if (grants.buckets?.search) {
      this.container.addEnvironment(
        'TESSERA_SEARCH_URI',
        `s3://${props.storage.buckets.search.bucketName}/lancedb`,
      );
    }
    if (props.settings) {
      checkSettings(props.settings);
      this.addEnvironment(props.settings.environment ?? {});
      for (const [variable, source] of Object.entries(props.settings.secrets ?? {})) {
        const reference = secretReference(this, variable, source);
        this.container.addEnvironment(reference.name, reference.value);
        this.taskDefinition.addToTaskRolePolicy(reference.statement);
      }
    }
  }

  /** Settings of the worker's container (the sidecars' endpoints). */
  addEnvironment(variables: Record<string, string>): void {
    for (const [name, value] of Object.entries(variables)) this.container.addEnvironment(name, value);
  }

  /**
   * Lets `fn` (the ingestion worker) start the media worker for a job, and tells it how: it runs no media
   * itself (TESSERA_MEDIA_TOOLS=off) and hands media jobs to this task definition (TESSERA_MEDIA_TASKS=ecs).
   */
  launchFrom(fn: lambda.Function): void {
    const subnets = this.vpc.selectSubnets({ subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS }).subnetIds;
    fn.addEnvironment('TESSERA_MEDIA_TOOLS', 'off');
    fn.addEnvironment('TESSERA_MEDIA_TASKS', 'ecs');
    fn.addEnvironment('TESSERA_MEDIA_CLUSTER', this.cluster.clusterArn);
    fn.addEnvironment('TESSERA_MEDIA_TASK_DEFINITION', this.taskDefinition.taskDefinitionArn);
    fn.addEnvironment('TESSERA_MEDIA_CONTAINER', MEDIA_WORKER_CONTAINER);
    fn.addEnvironment('TESSERA_MEDIA_SUBNETS', subnets.join(','));
    fn.addEnvironment('TESSERA_MEDIA_SECURITY_GROUPS', this.securityGroup.securityGroupId);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ecs:RunTask'],
        resources: [this.taskDefinition.taskDefinitionArn],
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      }),
    );
    const roles = [this.taskDefinition.taskRole, this.taskDefinition.obtainExecutionRole()];
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: roles.map((role) => role.roleArn),
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    );
  }
}

/** What each sidecar runs: its containers (one holds the GPU), port and the endpoint variables it answers. */
interface SidecarSpec {
  port: number;
  /** The served model's name, as the callers send it. */
  model: string;
  containers: {
    name: string;
    image: ecs.ContainerImage;
    gpu: boolean;
    port: number;
    command?: string[];
    environment?: Record<string, string>;
  }[];
  environment: (url: string) => Record<string, string>;
}

/** Infinity, the upstream embedding server the embedding sidecars front (MIT). */
const INFINITY_IMAGE = 'michaelf34/infinity:0.0.77';

/** A Hugging Face model and the revision (a commit, to pin it; a branch follows it) its vectors are made by. */
export interface ModelRef {
  id: string;
  revision: string;
}

/**
 * The embedding models: CLIP ViT-L/14 (768 dimensions, the video contract's) embeds sampled frames and text in
 * one space; CLAP embeds audio and text in one. `main` follows the model's branch: pin a commit in production,
 * since the revision is stored with every vector and a new one makes them incomparable.
 */
export const EMBEDDING_MODELS: { video: ModelRef; audio: ModelRef } = {
  video: { id: 'openai/clip-vit-large-patch14', revision: 'main' },
  audio: { id: 'laion/larger_clap_general', revision: 'main' },
};

function sidecarSpecs(
  images: Partial<Record<SidecarName, ecs.ContainerImage>>,
  models: { video: ModelRef; audio: ModelRef },
): Record<SidecarName, SidecarSpec> {
  const embedding = (kind: 'video' | 'audio', model: { id: string; revision: string }): SidecarSpec => ({
    port: 8000,
    model: model.id,
    containers: [
      {
        name: 'infinity',
        image: ecs.ContainerImage.fromRegistry(INFINITY_IMAGE),
        gpu: true,
        port: 7997,
        command: ['v2', '--model-id', model.id, '--revision', model.revision, '--port', '7997'],
      },
      {
        name: `${kind}-embedding`,
        image: images[`${kind}-embedding`] ?? containerImage('embedding-sidecar'),
        gpu: false,
        port: 8000,
        environment: {
          EMBED_KIND: kind,
          INFINITY_URL: 'http://127.0.0.1:7997',
          EMBED_MODEL: model.id,
          EMBED_MODEL_REVISION: model.revision,
          PORT: '8000',
        },
      },
    ],
    environment: (url) => ({ [`TESSERA_${kind.toUpperCase()}_EMBED_URL`]: url }),
  });
  return {
    transcription: {
      port: 8080,
      model: 'whisper-large-v3-turbo',
      containers: [
        {
          name: 'transcription',
          image: images.transcription ?? containerImage('transcription'),
          gpu: true,
          port: 8080,
        },
      ],
      environment: (url) => ({
        TESSERA_TRANSCRIPTION_URL: `${url}/v1`,
        TESSERA_TRANSCRIPTION_MODEL: 'whisper-large-v3-turbo',
      }),
    },
    captioning: {
      port: 8000,
      model: 'qwen2.5-vl-3b',
      containers: [
        {
          name: 'captioning',
          image: images.captioning ?? containerImage('captioning'),
          gpu: true,
          port: 8000,
        },
      ],
      environment: (url) => ({ TESSERA_CAPTION_URL: `${url}/v1`, TESSERA_CAPTION_MODEL: 'qwen2.5-vl-3b' }),
    },
    'video-embedding': embedding('video', models.video),
    'audio-embedding': embedding('audio', models.audio),
  };
}

export interface InferenceSidecarsProps {
  cluster: ecs.Cluster;
  vpc: ec2.IVpc;
  /** Security groups whose members may call the sidecars (the media worker's). */
  clients: ec2.ISecurityGroup[];
  /** Which sidecars run; default all four. */
  sidecars?: readonly SidecarName[];
  /** One GPU a sidecar, one sidecar an instance: default g5.xlarge (1 NVIDIA A10G, 24 GB). */
  instanceType?: ec2.InstanceType;
  /** Images in place of the ones built from containers/ (tests, a registry of prebuilt images). */
  images?: Partial<Record<SidecarName, ecs.ContainerImage>>;
  /** Default EMBEDDING_MODELS. */
  embeddingModels?: { video: ModelRef; audio: ModelRef };
}

export class InferenceSidecars extends Construct {
  /** The endpoint variables of the running sidecars, for the media worker (TESSERA_TRANSCRIPTION_URL…). */
  readonly environment: Record<string, string> = {};
  readonly services = new Map<SidecarName, ecs.Ec2Service>();
  readonly autoScalingGroup: autoscaling.AutoScalingGroup;
  readonly securityGroup: ec2.SecurityGroup;

  constructor(scope: Construct, id: string, props: InferenceSidecarsProps) {
    super(scope, id);
    const chosen = props.sidecars ?? SIDECARS;
    const namespace =
      props.cluster.defaultCloudMapNamespace ??
      props.cluster.addDefaultCloudMapNamespace({
        name: 'tessera.internal',
        type: servicediscovery.NamespaceType.DNS_PRIVATE,
        vpc: props.vpc,
      });
    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'GPU inference sidecars: reached by the media worker only',
      allowAllOutbound: true,
    });
    const instanceRole = new iam.Role(this, 'InstanceRole', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      managedPolicies: [
        iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonEC2ContainerServiceforEC2Role'),
        iam.ManagedPolicy.fromAwsManagedPolicyName('AmazonSSMManagedInstanceCore'),
      ],
    });
    this.autoScalingGroup = new autoscaling.AutoScalingGroup(this, 'GpuInstances', {
      vpc: props.vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      launchTemplate: new ec2.LaunchTemplate(this, 'GpuLaunchTemplate', {
        instanceType: props.instanceType ?? new ec2.InstanceType('g5.xlarge'),
        // The ECS-optimised GPU AMI (NVIDIA driver and container toolkit); Amazon Linux 2 is past its support.
        machineImage: ecs.EcsOptimizedImage.amazonLinux2023(ecs.AmiHardwareType.GPU),
        userData: ec2.UserData.forLinux(),
        role: instanceRole,
        securityGroup: this.securityGroup,
        requireImdsv2: true,
        // Model weights and images: the AMI's default root volume is too small for them.
        blockDevices: [
          { deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(200, { encrypted: true }) },
        ],
      }),
      minCapacity: 0,
      maxCapacity: chosen.length,
    });
    const capacity = new ecs.AsgCapacityProvider(this, 'GpuCapacity', {
      autoScalingGroup: this.autoScalingGroup,
      enableManagedTerminationProtection: false,
    });
    props.cluster.addAsgCapacityProvider(capacity);
    // The capacity provider blocks the containers' access to the instance role (iptables in the user data),
    // as wanted: the sidecars need no AWS rights. CDK warns that this default will change; it stays here.
    Annotations.of(props.cluster).acknowledgeWarning(
      '@aws-cdk/aws-ecs:deprecatedImdsBlocking',
      'The GPU sidecars must not reach the instance role',
    );
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const specs = sidecarSpecs(props.images ?? {}, props.embeddingModels ?? EMBEDDING_MODELS);
    for (const name of chosen) {
      const spec = specs[name];
      const task = new ecs.Ec2TaskDefinition(this, `${pascal(name)}Task`, {
        networkMode: ecs.NetworkMode.AWS_VPC,
      });
      for (const container of spec.containers) {
        task.addContainer(container.name, {
          containerName: container.name,
          image: container.image,
          command: container.command,
          environment: container.environment,
          gpuCount: container.gpu ? 1 : undefined,
          memoryReservationMiB: container.gpu ? 12_288 : 512,
          portMappings: [{ containerPort: container.port }],
          logging: ecs.LogDrivers.awsLogs({ streamPrefix: `${name}/${container.name}`, logGroup }),
          essential: true,
        });
      }
      const service = new ecs.Ec2Service(this, `${pascal(name)}Service`, {
        cluster: props.cluster,
        taskDefinition: task,
        desiredCount: 1,
        securityGroups: [this.securityGroup],
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        capacityProviderStrategies: [{ capacityProvider: capacity.capacityProviderName, weight: 1 }],
        cloudMapOptions: {
          name,
          cloudMapNamespace: namespace,
          dnsRecordType: servicediscovery.DnsRecordType.A,
        },
        // One GPU an instance: a new task can only start where the old one stopped.
        minHealthyPercent: 0,
        maxHealthyPercent: 100,
      });
      this.services.set(name, service);
      for (const client of props.clients) {
        this.securityGroup.addIngressRule(client, ec2.Port.tcp(spec.port), `${name} from the media worker`);
      }
      Object.assign(
        this.environment,
        spec.environment(`http://${name}.${namespace.namespaceName}:${spec.port}`),
      );
    }
  }
}

const pascal = (name: string) =>
  name
    .split('-')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
