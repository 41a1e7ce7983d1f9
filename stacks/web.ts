/**
 * The web client in AWS (document 3, "Web client server"): the built client in a private S3 bucket behind
 * CloudFront, and the web server as a Lambda function behind a response-streaming function URL, which
 * CloudFront serves at `/ui-api/*` and `/healthz` on the same origin (so the browser needs no CORS). The web
 * server calls the runtime directly: the HTTP API, and the function URLs of the runtime's streaming routes
 * (AG-UI runs, event streams), which API Gateway cannot stream.
 *
 * A function URL rather than a Fargate service: it streams (server-sent events, chat runs) for up to 15
 * minutes, costs nothing idle, and the server's bundle is small and starts fast (see README, "Web client in
 * AWS", for the cold start measured); a Fargate service would bill around the clock and need a load
 * balancer and a VPC for a server that only forwards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import type { Api } from './api';
import { bundleHandlerModules } from './bundle';

/** The handler of the web server's function (functions/web/server.ts). */
export const WEB_SERVER_HANDLER = 'web/server.webServer';
/** A stream (an event stream, a chat run) may last this long through the web server. */
export const WEB_SERVER_TIMEOUT_SECONDS = 900;
export const WEB_SERVER_MEMORY_MB = 512;

const webDir = path.dirname(createRequire(import.meta.url).resolve('@tessera/web/package.json'));
/** The client's build, `web/dist`. */
export const defaultClientDir = path.join(webDir, 'dist');

/**
 * Builds the client unless its build is fresh, as `npm start` does (@tessera/web-server's client build), in
 * a child process: SST loads the stacks' code without a TypeScript loader for that package.
 */
export function ensureClientBuild(clientDir: string): void {
  const script = `const { ensureClientBuild } = await import('@tessera/web-server');
await ensureClientBuild(${JSON.stringify(clientDir)}, (line) => process.stderr.write(line + '\\n'));`;
  const build = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.dirname(webDir),
    encoding: 'utf8',
  });
  if (build.status !== 0)
    throw new Error(
      `The web client could not be built: ${build.error?.message ?? build.stderr.slice(-4000)}`,
    );
}

export interface WebProps {
  /** The runtime the web server forwards to. */
  api: Api;
  /** The built client (default web/dist, built now when missing or older than web/). */
  clientDir?: string;
  /** Lifetime of the harness keys the web server mints (default 3600 s). */
  harnessKeyTtlS?: number;
}

/**
 * Client-side routes (a path whose last segment has no extension) answer the entry page; files answer
 * themselves. Runs at CloudFront's edge on every request of the bucket's behaviour.
 */
const ENTRY_PAGE_REWRITE = `function handler(event) {
  var request = event.request;
  var last = request.uri.split('/').pop();
  if (last === '' || last.indexOf('.') < 0) request.uri = '/index.html';
  return request;
}`;

export class Web extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly server: lambda.Function;
  readonly serverUrl: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: WebProps) {
    super(scope, id);
    const clientDir = props.clientDir ?? defaultClientDir;
    ensureClientBuild(clientDir);
    if (!existsSync(path.join(clientDir, 'index.html')))
      throw new Error(`No built web client in ${clientDir} (npm run build -w web)`);

    // The server: the web server's bundle, under a role of its own that reaches no store (it only forwards).
    const bundle = bundleHandlerModules([WEB_SERVER_HANDLER.split('.')[0]!]).get('web/server')!;
    this.server = new lambda.Function(this, 'ServerFunction', {
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.X86_64,
      code: lambda.Code.fromAsset(bundle.dir),
      handler: `index.${WEB_SERVER_HANDLER.split('.')[1]}`,
      timeout: Duration.seconds(WEB_SERVER_TIMEOUT_SECONDS),
      memorySize: WEB_SERVER_MEMORY_MB,
      description: 'The web client server: /ui-api/* to the runtime',
      role: new iam.Role(this, 'ServerRole', {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        managedPolicies: [
          iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole'),
        ],
        description: 'The web client server: logs only',
      }),
      environment: {
        TESSERA_RUNTIME_URL: props.api.httpApi.apiEndpoint,
        TESSERA_RUNTIME_STREAM_URLS: Stack.of(this).toJsonString(Object.fromEntries(props.api.streamingUrls)),
        TESSERA_WEB_HARNESS_KEY_TTL_S: String(props.harnessKeyTtlS ?? 3600),
      },
    });
    this.serverUrl = this.server.addFunctionUrl({
      // Open like the runtime's API (document 3: the admin surface has no authentication); CloudFront is
      // its front door. A signed origin (OAC) cannot carry browsers' POST bodies to a function URL.
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
    });

    // The client: private bucket, read by CloudFront alone.
    this.bucket = new s3.Bucket(this, 'ClientBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Left behind when the stack goes (CloudFormation deletes no bucket with objects in it).
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // 60 s without a byte ends a response: event streams send a keep-alive well within that.
    const serverOrigin = new origins.FunctionUrlOrigin(this.serverUrl, { readTimeout: Duration.seconds(60) });
    const forwarded: cloudfront.BehaviorOptions = {
      origin: serverOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      // Streams pass as they come: nothing is compressed or cached on the way.
      compress: false,
    };
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Tessera web client',
      defaultRootObject: 'index.html',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        compress: true,
        functionAssociations: [
          {
            eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
            function: new cloudfront.Function(this, 'EntryPage', {
              code: cloudfront.FunctionCode.fromInline(ENTRY_PAGE_REWRITE),
              runtime: cloudfront.FunctionRuntime.JS_2_0,
              comment: 'Client routes answer the entry page',
            }),
          },
        ],
      },
      additionalBehaviors: { '/ui-api/*': forwarded, '/healthz': forwarded },
    });

    // Hashed assets are immutable; the entry page is never cached, so a deploy shows at once.
    const assets = new s3deploy.BucketDeployment(this, 'ClientAssets', {
      sources: [s3deploy.Source.asset(clientDir, { exclude: ['index.html', '*.gz', '*.br'] })],
      destinationBucket: this.bucket,
      cacheControl: [s3deploy.CacheControl.fromString('public, max-age=31536000, immutable')],
      prune: false,
    });
    const entry = new s3deploy.BucketDeployment(this, 'ClientEntry', {
      sources: [s3deploy.Source.asset(clientDir, { exclude: ['*', '!index.html'] })],
      destinationBucket: this.bucket,
      cacheControl: [s3deploy.CacheControl.fromString('no-cache')],
      prune: false,
      distribution: this.distribution,
      distributionPaths: ['/index.html'],
    });
    // The entry page names assets: they are in place before it.
    entry.node.addDependency(assets);

    new CfnOutput(this, 'WebUrl', {
      value: `https://${this.distribution.distributionDomainName}`,
      description: 'Tessera web client',
    });
    new CfnOutput(this, 'WebServerUrl', {
      value: this.serverUrl.url,
      description: 'The web client server (response streaming)',
    });
  }
}
