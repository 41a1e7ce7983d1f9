/**
 * Lambda functions of the handlers under functions/: what every function shares (runtime, code asset per
 * handler module, the search layer, the tables, buckets and queues it may use). The api, workers and
 * schedules constructs create their functions through one of these, so a stack ships each bundle and the
 * layer once.
 */
import { splitHandler } from '@tessera/functions/routes';
import { AssetHashType, Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { bundleHandlerModules, type HandlerBundle, LAMBDA_CONFIG_DIR, searchLayer } from './bundle';
import type { Queues } from './queues';
import type { Storage } from './storage';

export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_MEMORY_MB = 1024;

export interface FunctionsProps {
  /** Deployment stage, passed to every function as `TESSERA_STAGE`. */
  stage: string;
  storage: Storage;
  queues: Queues;
}

export interface FunctionSpec {
  /** Prefix of the construct ids of the function and what belongs to it. */
  name: string;
  /** `<module>.<export>` under functions/. */
  handler: string;
  description: string;
  timeoutSeconds?: number;
  memoryMb?: number;
}

export class Functions extends Construct {
  private readonly props: FunctionsProps;
  private readonly bundles = new Map<string, HandlerBundle>();
  private readonly code = new Map<string, lambda.AssetCode>();
  private searchLayerVersion?: lambda.LayerVersion;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    this.props = props;
  }

  /** Bundles the modules of these handlers in one build (shared dependencies are parsed once). */
  bundle(handlers: readonly string[]): void {
    const modules = handlers.map((handler) => splitHandler(handler).module);
    for (const [module, bundle] of bundleHandlerModules(modules)) this.bundles.set(module, bundle);
  }

  /**
   * A function in `scope` running `spec.handler`, with the stage, search URI and config dir, read/write on
   * every table and bucket, and the right to send to every queue.
   */
  create(scope: Construct, spec: FunctionSpec): lambda.Function {
    const { storage, queues, stage } = this.props;
    const { module, exportName } = splitHandler(spec.handler);
    if (!this.bundles.has(module)) this.bundle([spec.handler]);
    const bundle = this.bundles.get(module)!;
    const fn = new lambda.Function(scope, `${spec.name}Function`, {
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
