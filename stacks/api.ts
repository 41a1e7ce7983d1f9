/**
 * The HTTP API from the route table (`@tessera/functions/routes`): one Lambda function per route, the
 * `$default` route for every other request, Function URLs for response-streaming routes, and the schedules.
 */
import {
  type QueueWorkerDef,
  type RouteDef,
  type ScheduleDef,
  fallbackHandler as sharedFallbackHandler,
  queueWorkers as sharedQueueWorkers,
  routes as sharedRoutes,
  schedules as sharedSchedules,
  splitHandler,
} from '@tessera/functions/routes';
import { bucketNotifications } from '@tessera/platform/resources';
import { AssetHashType, CfnOutput, Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { bundleHandlerModules, type HandlerBundle, LAMBDA_CONFIG_DIR, searchLayer } from './bundle';
import { pascalCase } from './definitions';
import type { Queues } from './queues';
import type { Storage } from './storage';

export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_MEMORY_MB = 1024;

export interface ApiProps {
  /** Deployment stage, passed to every function as `TESSERA_STAGE`. */
  stage: string;
  storage: Storage;
  queues: Queues;
  /** Defaults to the shared route table. */
  routes?: readonly RouteDef[];
  /** Serves every unmatched request; defaults to the shared fallback handler. */
  fallbackHandler?: string;
  /** Defaults to the shared schedules. */
  schedules?: readonly ScheduleDef[];
  /** Defaults to the shared queue workers. */
  queueWorkers?: readonly QueueWorkerDef[];
}

interface FunctionSpec {
  /** Prefix of the construct ids of the function and what belongs to it. */
  name: string;
  handler: string;
  description: string;
  timeoutSeconds?: number;
  memoryMb?: number;
}

export class Api extends Construct {
  readonly httpApi: apigateway.HttpApi;
  /** Every function by what it serves: `GET /health`, `$default`, or a schedule's name. */
  readonly functions = new Map<string, lambda.Function>();
  /** The Function URL of every streaming route, by `METHOD /path`. */
  readonly streamingUrls = new Map<string, string>();

  private readonly props: ApiProps;
  private readonly bundles: Map<string, HandlerBundle>;
  private readonly code = new Map<string, lambda.AssetCode>();
  private searchLayerVersion?: lambda.LayerVersion;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    this.props = props;
    const routes = props.routes ?? sharedRoutes;
    const fallbackHandler = props.fallbackHandler ?? sharedFallbackHandler;
    const schedules = props.schedules ?? sharedSchedules;
    const queueWorkers = props.queueWorkers ?? sharedQueueWorkers;
    const handlers = [
      fallbackHandler,
      ...routes.map((r) => r.handler),
      ...schedules.map((s) => s.handler),
      ...queueWorkers.map((w) => w.handler),
    ];
    this.bundles = bundleHandlerModules(handlers.map((handler) => splitHandler(handler).module));

    const fallback = this.createFunction({
      name: 'Fallback',
      handler: fallbackHandler,
      description: 'Requests no route matches ($default)',
    });
    this.functions.set('$default', fallback);
    this.httpApi = new apigateway.HttpApi(this, 'HttpApi', {
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
    });

    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const name = pascalCase(key);
      const fn = this.createFunction({
        name,
        handler: route.handler,
        description: key,
        timeoutSeconds: route.timeoutSeconds,
        memoryMb: route.memoryMb,
      });
      this.functions.set(key, fn);
      if (route.streaming) {
        this.exposeStreaming(name, key, fn);
      } else {
        this.httpApi.addRoutes({
          path: route.path,
          methods: [apigateway.HttpMethod[route.method]],
          integration: new HttpLambdaIntegration(`${name}Integration`, fn),
        });
      }
    }

    for (const schedule of schedules) {
      const name = `${pascalCase(schedule.name)}Job`;
      const fn = this.createFunction({
        name,
        handler: schedule.handler,
        description: `Schedule ${schedule.name}, every ${schedule.rateMinutes} min`,
      });
      this.functions.set(schedule.name, fn);
      new scheduler.Schedule(this, `${name}Schedule`, {
        schedule: scheduler.ScheduleExpression.rate(Duration.minutes(schedule.rateMinutes)),
        // A run still waiting when the next one is due is dropped rather than piled up (the limit is a day).
        target: new LambdaInvoke(fn, {
          maxEventAge: Duration.minutes(Math.min(schedule.rateMinutes, 24 * 60)),
        }),
        description: `${schedule.name} every ${schedule.rateMinutes} min`,
      });
    }

    for (const worker of queueWorkers) this.addQueueWorker(worker);
    for (const notification of bucketNotifications) {
      props.storage.buckets[notification.bucket].addEventNotification(
        s3.EventType.OBJECT_CREATED,
        new s3n.SqsDestination(props.queues.queues[notification.queue]),
        { prefix: notification.prefix },
      );
    }

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.apiEndpoint, description: 'Tessera HTTP API' });
  }

  /**
   * A queue's worker: an SQS event source mapping reporting partial batch failures, so only the failed
   * messages of a batch are redelivered (and go to the dead-letter queue after its receive limit).
   */
  private addQueueWorker(worker: QueueWorkerDef): void {
    const { queues } = this.props;
    const queue = worker.deadLetter ? queues.deadLetterQueues[worker.queue] : queues.queues[worker.queue];
    if (!queue)
      throw new Error(`Queue worker ${worker.name} reads a dead-letter queue ${worker.queue} has not`);
    const name = `${pascalCase(worker.name)}Worker`;
    const fn = this.createFunction({
      name,
      handler: worker.handler,
      description: `Queue worker ${worker.name}`,
      timeoutSeconds: worker.timeoutSeconds,
      memoryMb: worker.memoryMb,
    });
    this.functions.set(worker.name, fn);
    fn.addEventSource(
      new SqsEventSource(queue, {
        batchSize: worker.batchSize,
        reportBatchItemFailures: true,
        // Lambda's floor for a mapping's maximum concurrency is 2.
        maxConcurrency: Math.max(2, worker.concurrency),
      }),
    );
  }

  /**
   * API Gateway buffers responses, so a streaming route gets a Function URL in RESPONSE_STREAM mode instead
   * of an API route. Note that Function URL events carry no `pathParameters` or `routeKey`.
   */
  private exposeStreaming(name: string, key: string, fn: lambda.Function): void {
    const url = fn.addFunctionUrl({
      // Open, like the API itself until it gets an authorizer.
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
      cors: { allowedOrigins: ['*'], allowedMethods: [lambda.HttpMethod.GET] },
    });
    this.streamingUrls.set(key, url.url);
    new CfnOutput(this, `${name}Url`, { value: url.url, description: `Response-streaming ${key}` });
  }

  private createFunction(spec: FunctionSpec): lambda.Function {
    const { storage, queues, stage } = this.props;
    const { module, exportName } = splitHandler(spec.handler);
    const bundle = this.bundles.get(module)!;
    const fn = new lambda.Function(this, `${spec.name}Function`, {
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.X86_64,
      code: this.codeOf(module, bundle),
      handler: `index.${exportName}`,
      timeout: Duration.seconds(spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      memorySize: spec.memoryMb ?? DEFAULT_MEMORY_MB,
      description: spec.description,
      layers: bundle.usesSearchLayer ? [this.searchLayer()] : undefined,
      environment: {
        TESSERA_STAGE: stage,
        TESSERA_SEARCH_URI: `s3://${storage.buckets.search.bucketName}/lancedb`,
        TESSERA_CONFIG_DIR: LAMBDA_CONFIG_DIR,
      },
    });
    storage.bind(fn);
    queues.bind(fn);
    return fn;
  }

  /** One asset per handler module, shared by the functions of its routes. */
  private codeOf(module: string, bundle: HandlerBundle): lambda.AssetCode {
    let code = this.code.get(module);
    if (!code) {
      code = lambda.Code.fromAsset(bundle.dir);
      this.code.set(module, code);
    }
    return code;
  }

  private searchLayer(): lambda.LayerVersion {
    if (!this.searchLayerVersion) {
      const build = searchLayer();
      this.searchLayerVersion = new lambda.LayerVersion(this, 'SearchLayer', {
        // The custom hash spares fingerprinting ~190 MB on every synth; it follows the package versions.
        code: lambda.Code.fromAsset(build.dir, {
          assetHash: build.hash,
          assetHashType: AssetHashType.CUSTOM,
        }),
        compatibleRuntimes: [lambda.Runtime.NODEJS_22_X],
        compatibleArchitectures: [lambda.Architecture.X86_64],
        description: 'LanceDB with its Linux x64 binary, and Apache Arrow',
      });
    }
    return this.searchLayerVersion;
  }
}
