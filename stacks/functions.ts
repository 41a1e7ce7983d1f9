/**
 * Lambda functions of the handlers under functions/: what every function shares (runtime, code asset per
 * handler module, the search layer) and what each one gets by its module (the grants of grants.ts, the
 * deploy settings its bundle reads). The api, workers and schedules constructs create their functions
 * through one of these, so a stack ships each bundle and the layer once.
 */
import { splitHandler } from '@tessera/functions/routes';
import { AssetHashType, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  bundleHandlerModules,
  type HandlerBundle,
  LAMBDA_CONFIG_DIR,
  type ModuleRoutes,
  ROUTER_EXPORT,
  searchLayer,
  sortedRoutes,
} from './bundle';
import { pascalCase } from './definitions';
import { bundleReads, grantMismatches, MODULE_GRANTS, referencedStores, type StoreGrants } from './grants';
import type { Queues } from './queues';
import { checkSettings, type FunctionSettings, type SecretSource } from './settings';
import type { Storage } from './storage';

/**
 * API Gateway's HTTP API waits 30 s at most for its integration, and a function must answer before that, so
 * 29 s is the longest an API route may take; it is the default for every function.
 */
export const API_TIMEOUT_SECONDS = 29;
export const DEFAULT_TIMEOUT_SECONDS = API_TIMEOUT_SECONDS;
export const DEFAULT_MEMORY_MB = 1024;

export interface FunctionsProps {
  /** Deployment stage, passed to every function as `TESSERA_STAGE`. */
  stage: string;
  storage: Storage;
  queues: Queues;
  /** Inference and LLM endpoints and their keys' sources; default none. */
  settings?: FunctionSettings;
  /** What each handler module may use; default MODULE_GRANTS. */
  grants?: Record<string, StoreGrants>;
}

export interface FunctionSpec {
  /** Prefix of the construct ids of the function and what belongs to it. */
  name: string;
  /** `<module>.<export>` under functions/. */
  handler: string;
  description: string;
  timeoutSeconds?: number;
  memoryMb?: number;
  /** Served through a function URL of its own: it gets no URLs of other streams (see shareUrl). */
  streaming?: boolean;
  /**
   * Runs under a role of its own instead of the one execution role of its handler module (default false).
   * A module's functions have the module's grants: one role and policy per module instead of per function
   * keeps the stack under CloudFormation's 500 resources.
   */
  ownRole?: boolean;
}

export class Functions extends Construct {
  private readonly props: FunctionsProps;
  private readonly bundles = new Map<string, HandlerBundle>();
  private readonly code = new Map<string, lambda.AssetCode>();
  private searchLayerVersion?: lambda.LayerVersion;
  /** Every function created, and whether it streams. */
  private readonly created: { fn: lambda.Function; streaming: boolean; bundle: HandlerBundle }[] = [];
  /** The execution role shared by the functions of each handler module. */
  private readonly moduleRoles = new Map<string, iam.Role>();
  /** Variables every non-streaming function gets, whenever it is created. */
  private readonly shared = new Map<string, string>();
  /** The routes of each module whose bundle has a router, by module. */
  private readonly routers = new Map<string, ModuleRoutes>();
  /** Variables every function whose bundle reads them gets, whenever it is created. */
  private readonly provided = new Map<string, string>();

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    if (props.settings) checkSettings(props.settings);
    this.props = props;
  }

  /**
   * Bundles the modules of these handlers in one build (shared dependencies are parsed once). `routers` gives
   * modules the routes their bundle's router serves (`<module>.route`, see bundleHandlerModules): once, before
   * any function of the module exists, since all the module's functions share its one code asset.
   */
  bundle(handlers: readonly string[], routers: ReadonlyMap<string, ModuleRoutes> = new Map()): void {
    for (const [module, routes] of routers) {
      const known = this.routers.get(module);
      if (known && JSON.stringify(sortedRoutes(known)) !== JSON.stringify(sortedRoutes(routes))) {
        throw new Error(`The routes of functions/${module}.ts were given twice, and differ`);
      }
      if (!known && this.code.has(module)) {
        throw new Error(`The routes of functions/${module}.ts come after functions of it were created`);
      }
      this.routers.set(module, routes);
    }
    const modules = handlers.map((handler) => splitHandler(handler).module);
    for (const [module, bundle] of bundleHandlerModules(modules, this.routers))
      this.bundles.set(module, bundle);
  }

  /**
   * A function in `scope` running `spec.handler`, with the stage and config dir, its module's grants (and
   * the names of those resources), the deploy settings its bundle reads, and the URLs shared so far.
   * Throws when the module's bundle reaches a store its grants leave out, or is granted one it never reaches.
   */
  create(scope: Construct, spec: FunctionSpec): lambda.Function {
    const { storage, queues, stage } = this.props;
    const { module, exportName } = splitHandler(spec.handler);
    if (!this.bundles.has(module)) this.bundle([spec.handler]);
    const bundle = this.bundles.get(module)!;
    if (exportName === ROUTER_EXPORT && !bundle.routes) {
      throw new Error(
        `${spec.handler}: the bundle of functions/${module}.ts has no router; give bundle() its routes`,
      );
    }
    const grants = this.grantsOf(module, bundle);
    // A module role is granted once, by its first function: every further grant would repeat the same
    // statements, which CloudFormation counts before they are merged (overflow policies, resources).
    const grantsRole = spec.ownRole === true || !this.moduleRoles.has(module);
    const fn = new lambda.Function(scope, `${spec.name}Function`, {
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.X86_64,
      code: this.codeOf(module, bundle),
      handler: `index.${exportName}`,
      timeout: Duration.seconds(spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      memorySize: spec.memoryMb ?? DEFAULT_MEMORY_MB,
      description: spec.description,
      layers: bundle.usesSearchLayer ? [this.searchLayer()] : undefined,
      role: spec.ownRole ? undefined : this.moduleRole(module),
      environment: {
        TESSERA_STAGE: stage,
        TESSERA_CONFIG_DIR: LAMBDA_CONFIG_DIR,
      },
    });
    if (grants.buckets?.search) {
      fn.addEnvironment('TESSERA_SEARCH_URI', `s3://${storage.buckets.search.bucketName}/lancedb`);
    }
    storage.bind(fn, grants, grantsRole);
    queues.bind(fn, grants, grantsRole);
    this.applySettings(fn, bundle);
    const streaming = spec.streaming ?? false;
    if (!streaming) for (const [name, value] of this.shared) fn.addEnvironment(name, value);
    for (const [name, value] of this.provided) if (bundleReads(bundle, name)) fn.addEnvironment(name, value);
    this.created.push({ fn, streaming, bundle });
    return fn;
  }

  /** The role of a module's functions: Lambda's basic execution, then what their grants add. */
  private moduleRole(module: string): iam.Role {
    let role = this.moduleRoles.get(module);
    if (!role) {
      role = new iam.Role(this, `${pascalCase(module)}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        managedPolicies: [
          iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole'),
        ],
        description: `The functions of functions/${module}.ts`,
      });
      this.moduleRoles.set(module, role);
    }
    return role;
  }

  /** The bundle the functions of `module` ship, once it is bundled: with its router when it has routes. */
  bundleOf(module: string): HandlerBundle | undefined {
    return this.bundles.get(module);
  }

  /** The functions created so far whose bundle reads `variable` (an env.ts of theirs names it). */
  readersOf(variable: string): lambda.Function[] {
    return this.created.filter(({ bundle }) => bundleReads(bundle, variable)).map(({ fn }) => fn);
  }

  /**
   * Gives every non-streaming function, created before or after, `name` = `url` (a stream's function URL).
   * Streaming functions are left out: a stream's function would otherwise depend on its own URL, or two
   * streams on each other's.
   */
  shareUrl(name: string, url: string): void {
    this.shared.set(name, url);
    for (const { fn, streaming } of this.created) if (!streaming) fn.addEnvironment(name, url);
  }

  /**
   * Gives every function whose bundle reads `name`, created before or after, `name` = `value`, streaming ones
   * included: for a value that no function's own resources feed (the HTTP API's URL), so no cycle can form.
   */
  provide(name: string, value: string): void {
    this.provided.set(name, value);
    for (const { fn, bundle } of this.created) if (bundleReads(bundle, name)) fn.addEnvironment(name, value);
  }

  private grantsOf(module: string, bundle: HandlerBundle): StoreGrants {
    const grants = (this.props.grants ?? MODULE_GRANTS)[module];
    if (!grants) throw new Error(`No grants declared for handler module ${module} (stacks/grants.ts)`);
    const { missing, unused } = grantMismatches(referencedStores(bundle), grants);
    if (missing.length > 0 || unused.length > 0) {
      throw new Error(
        `Grants of ${module} do not match what its bundle reaches: ` +
          [
            missing.length > 0 ? `reached without a grant: ${missing.join(', ')}` : '',
            unused.length > 0 ? `granted but never reached: ${unused.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('; '),
      );
    }
    return grants;
  }

  /** The deploy settings the bundle reads: plain ones as they are, keys as a reference it may read. */
  private applySettings(fn: lambda.Function, bundle: HandlerBundle): void {
    const { environment = {}, secrets = {} } = this.props.settings ?? {};
    for (const [variable, value] of Object.entries(environment)) {
      if (bundleReads(bundle, variable)) fn.addEnvironment(variable, value);
    }
    for (const [variable, source] of Object.entries(secrets)) {
      if (!bundleReads(bundle, variable)) continue;
      const reference = secretReference(this, variable, source);
      fn.addEnvironment(reference.name, reference.value);
      fn.addToRolePolicy(reference.statement);
    }
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

/**
 * How a key reaches a process: the variable naming where it is kept (`<VAR>_SECRET_ARN` or `<VAR>_PARAMETER`,
 * resolved by resolveSecretSettings at start) and the statement that lets the process read just that one.
 */
export function secretReference(
  scope: Construct,
  variable: string,
  source: SecretSource,
): { name: string; value: string; statement: iam.PolicyStatement } {
  if ('secretArn' in source) {
    return {
      name: `${variable}_SECRET_ARN`,
      value: source.secretArn,
      statement: new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [source.secretArn],
      }),
    };
  }
  const name = source.parameterName;
  const arn = name.startsWith('arn:')
    ? name
    : Stack.of(scope).formatArn({
        service: 'ssm',
        resource: 'parameter',
        // A parameter name in a path starts with `/`, which the ARN's `parameter` already ends with.
        resourceName: name.replace(/^\//, ''),
      });
  return {
    name: `${variable}_PARAMETER`,
    value: name,
    statement: new iam.PolicyStatement({ actions: ['ssm:GetParameter'], resources: [arn] }),
  };
}
