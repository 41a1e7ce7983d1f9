/**
 * The whole of Tessera in one stack: storage, queues, the functions and what invokes them. sst.config.ts
 * (`sst deploy`) and app.ts (`cdk synth`, `cdk deploy`) both compose it.
 */
import { NestedStack, type Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Api } from './api';
import { Functions } from './functions';
import { Jobs } from './jobs';
import { InferenceSidecars, MediaWorker } from './media';
import { Queues } from './queues';
import { Schedules } from './schedules';
import { checkMediaSettings, type FunctionSettings, type MediaSettings } from './settings';
import { Storage } from './storage';
import { TelegramWebhook } from './telegram';
import { Web, type WebProps } from './web';
import { Workers } from './workers';
import { Workflows } from './workflows';

export interface TesseraProps {
  /** The SST or CDK stage, any name SST accepts; functions derive their resource prefix from it. */
  stage: string;
  /** Inference and LLM endpoints and where their keys are kept; default: none (embedded models). */
  settings?: FunctionSettings;
  /** Where media runs: default the media worker on Fargate and no GPU sidecars. */
  media?: MediaSettings;
  /** The web client (S3 and CloudFront, its server a streaming function URL); `false`: none. */
  web?: Omit<WebProps, 'api'> | false;
}

export interface Tessera {
  storage: Storage;
  queues: Queues;
  functions: Functions;
  api: Api;
  workers: Workers;
  schedules: Schedules;
  workflows: Workflows;
  jobs: Jobs;
  /** The media worker, unless media is off. */
  media?: MediaWorker;
  /** The GPU sidecars, when any run. */
  sidecars?: InferenceSidecars;
  /** The Telegram gateway's webhook and worker, when the bot token's secret is given. */
  telegram?: TelegramWebhook;
  /** The web client, unless it is off. */
  web?: Web;
}

/** The CDK feature flag that merges a policy's statements of the same actions. */
export const MINIMIZE_POLICIES = '@aws-cdk/aws-iam:minimizePolicies';

export function composeTessera(stack: Stack, props: TesseraProps): Tessera {
  // Statements with the same actions merged into one (a grant per table would otherwise spill each role's
  // policy into managed policies: about a hundred resources of CloudFormation's 500 a stack). The apps set
  // it before their stacks have children (sst.config.ts, stacks/app.ts); a bare stack (tests) gets it here.
  if (stack.node.tryGetContext(MINIMIZE_POLICIES) === undefined)
    stack.node.setContext(MINIMIZE_POLICIES, true);
  const storage = new Storage(stack, 'Storage');
  const queues = new Queues(stack, 'Queues');
  const functions = new Functions(stack, 'Functions', {
    stage: props.stage,
    storage,
    queues,
    settings: props.settings,
  });
  const api = new Api(stack, 'Api', { functions });
  const workers = new Workers(stack, 'Workers', { functions, storage, queues });
  const schedules = new Schedules(stack, 'Schedules', { functions });
  const workflows = new Workflows(stack, 'Workflows', { functions, api });
  // Last of the functions: it gives the job schedules' group to every function that manages them.
  const jobs = new Jobs(stack, 'Jobs', { functions });
  const tessera: Tessera = { storage, queues, functions, api, workers, schedules, workflows, jobs };
  const secrets = props.settings?.secrets ?? {};
  if (secrets.TELEGRAM_BOT_TOKEN || secrets.TELEGRAM_WEBHOOK_SECRET) {
    if (!secrets.TELEGRAM_BOT_TOKEN || !secrets.TELEGRAM_WEBHOOK_SECRET)
      throw new Error(
        'Invalid deploy settings: the Telegram webhook needs both TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET (as _SECRET_ARN or _PARAMETER)',
      );
    tessera.telegram = new TelegramWebhook(stack, 'Telegram', {
      functions,
      runtimeUrl: api.httpApi.apiEndpoint,
    });
  }
  // A nested stack of its own: one resource of the stack's 500, whatever the client's delivery needs.
  if (props.web !== false)
    tessera.web = new Web(new NestedStack(stack, 'WebStack', { description: 'Tessera web client' }), 'Web', {
      api,
      ...props.web,
    });
  const mediaSettings = props.media ?? { worker: true, sidecars: [] };
  checkMediaSettings(mediaSettings, props.settings);
  if (!mediaSettings.worker) return tessera;
  const media = new MediaWorker(stack, 'Media', {
    stage: props.stage,
    storage,
    queues,
    settings: props.settings,
  });
  const ingestionWorker = workers.functions.get('ingestion-worker');
  if (!ingestionWorker)
    throw new Error('The media worker is started by the ingestion worker, which is missing');
  media.launchFrom(ingestionWorker);
  tessera.media = media;
  if (mediaSettings.sidecars.length > 0) {
    const sidecars = new InferenceSidecars(stack, 'Inference', {
      cluster: media.cluster,
      vpc: media.vpc,
      clients: [media.securityGroup],
      sidecars: mediaSettings.sidecars,
      instanceType: mediaSettings.gpuInstanceType
        ? new ec2.InstanceType(mediaSettings.gpuInstanceType)
        : undefined,
    });
    media.addEnvironment(sidecars.environment);
    tessera.sidecars = sidecars;
  }
  return tessera;
}
