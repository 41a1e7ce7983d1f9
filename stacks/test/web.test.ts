import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { routes } from '@tessera/functions/routes';
import { Api, bundleHandlerModules, WEB_SERVER_TIMEOUT_SECONDS, Web } from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLambdaHost } from './lambda-host';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';

describe('Web', () => {
  let shared: { stack: Stack; web: Web; api: Api; template: Template };

  beforeAll(() => {
    const { stack, functions } = compose(apps.create(), 'WebTest');
    // A buffered route and the streaming AG-UI route, whose function URL the web server learns.
    const api = new Api(stack, 'Api', {
      functions,
      routes: routes.filter((r) => r.handler === 'http/agents.listAgents' || r.path === '/ag-ui/{agent}'),
    });
    const web = new Web(stack, 'Web', { api });
    shared = { stack, web, api, template: Template.fromStack(stack) };
  }, 600_000);

  it('keeps the client in a private, TLS-only bucket that CloudFront alone reads', () => {
    const { stack, web, template } = shared;
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    const bucket = logicalId(stack, web.bucket);
    const policies = template.findResources('AWS::S3::BucketPolicy', {
      Properties: { Bucket: { Ref: bucket } },
    });
    const statements = Object.values(policies).flatMap(
      (policy) =>
        (policy as { Properties: { PolicyDocument: { Statement: unknown[] } } }).Properties.PolicyDocument
          .Statement,
    ) as { Effect: string; Principal?: { Service?: string }; Condition?: unknown }[];
    expect(
      statements.some(
        (s) => s.Effect === 'Deny' && JSON.stringify(s.Condition).includes('aws:SecureTransport'),
      ),
    ).toBe(true);
    const allowed = statements.filter((s) => s.Effect === 'Allow');
    expect(allowed.length).toBeGreaterThan(0);
    for (const statement of allowed) {
      // CloudFront (through its origin access control) and the deployment's own role: never everyone.
      expect(JSON.stringify(statement.Principal)).not.toBe('"*"');
    }
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
  });

  it('serves the client from the bucket and /ui-api/* and /healthz from the web server, uncached', () => {
    const { template } = shared;
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0] as {
      Properties: { DistributionConfig: Record<string, unknown> };
    };
    const config = distribution.Properties.DistributionConfig as {
      DefaultRootObject: string;
      DefaultCacheBehavior: {
        FunctionAssociations: unknown[];
        ViewerProtocolPolicy: string;
        Compress: boolean;
      };
      CacheBehaviors: {
        PathPattern: string;
        CachePolicyId: string;
        AllowedMethods: string[];
        Compress: boolean;
        ViewerProtocolPolicy: string;
      }[];
    };
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(config.CacheBehaviors.map((b) => b.PathPattern).sort()).toEqual(['/healthz', '/ui-api/*']);
    for (const behavior of config.CacheBehaviors) {
      expect(behavior.CachePolicyId).toBe(CACHING_DISABLED);
      expect(behavior.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'OPTIONS']));
      expect(behavior.Compress).toBe(false);
    }
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
  });

  it("answers client routes with the entry page at CloudFront's edge, and files as themselves", () => {
    const { template } = shared;
    const fn = Object.values(template.findResources('AWS::CloudFront::Function'))[0] as {
      Properties: { FunctionCode: string };
    };
    const handler = new Function(`${fn.Properties.FunctionCode}; return handler;`)() as (event: {
      request: { uri: string };
    }) => { uri: string };
    const uri = (path: string) => handler({ request: { uri: path } }).uri;
    expect(uri('/')).toBe('/index.html');
    expect(uri('/chat')).toBe('/index.html');
    expect(uri('/graph/')).toBe('/index.html');
    expect(uri('/assets/index-abc123.js')).toBe('/assets/index-abc123.js');
    expect(uri('/favicon.svg')).toBe('/favicon.svg');
  });

  it('runs the web server as a response-streaming function URL that knows the runtime and its streams, reaching no store', () => {
    const { stack, web, api, template } = shared;
    template.hasResourceProperties('AWS::Lambda::Url', {
      TargetFunctionArn: { 'Fn::GetAtt': [logicalId(stack, web.server), 'Arn'] },
      InvokeMode: 'RESPONSE_STREAM',
      AuthType: 'NONE',
    });
    const server = template.findResources('AWS::Lambda::Function')[logicalId(stack, web.server)] as {
      Properties: {
        Handler: string;
        Runtime: string;
        Timeout: number;
        Layers?: unknown;
        Role: { 'Fn::GetAtt': [string, string] };
        Environment: { Variables: Record<string, unknown> };
      };
    };
    expect(server.Properties.Handler).toBe('index.webServer');
    expect(server.Properties.Runtime).toBe('nodejs22.x');
    expect(server.Properties.Timeout).toBe(WEB_SERVER_TIMEOUT_SECONDS);
    expect(server.Properties.Layers).toBeUndefined();
    const variables = server.Properties.Environment.Variables;
    expect(JSON.stringify(variables.TESSERA_RUNTIME_URL)).toContain(logicalId(stack, api.httpApi));
    // The AG-UI route's function URL, by its route.
    const streams = JSON.stringify(variables.TESSERA_RUNTIME_STREAM_URLS);
    expect(streams).toContain('POST /ag-ui/{agent}');
    const aguiFunction = logicalId(stack, api.functions.get('POST /ag-ui/{agent}')!);
    const aguiUrl = Object.entries(template.findResources('AWS::Lambda::Url')).find(([, url]) =>
      JSON.stringify(url).includes(aguiFunction),
    )![0];
    expect(streams).toContain(aguiUrl);
    // Its role logs and nothing else.
    const role = server.Properties.Role['Fn::GetAtt'][0];
    const attached = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify((policy as { Properties: { Roles: unknown } }).Properties.Roles).includes(role),
    );
    expect(attached).toEqual([]);
  });

  it('ships hashed assets immutable and the entry page never cached, the entry page after the assets', () => {
    const { template } = shared;
    const deployments = Object.entries(template.findResources('Custom::CDKBucketDeployment')) as [
      string,
      {
        Properties: { SystemMetadata?: Record<string, string>; DistributionPaths?: string[] };
        DependsOn?: string[];
      },
    ][];
    expect(deployments).toHaveLength(2);
    const assets = deployments.find(([, d]) =>
      d.Properties.SystemMetadata?.['cache-control']?.includes('immutable'),
    )!;
    const entry = deployments.find(([, d]) => d.Properties.SystemMetadata?.['cache-control'] === 'no-cache')!;
    expect(entry[1].Properties.DistributionPaths).toEqual(['/index.html']);
    expect(entry[1].DependsOn).toEqual(expect.arrayContaining([assets[0]]));
  });
});

describe("the web server's bundle", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-web-lambda-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is small, starts fast, and streams a chat run from the runtime with a harness key', async () => {
    const bundle = bundleHandlerModules(['web/server']).get('web/server')!;
    expect(bundle.usesSearchLayer).toBe(false);
    expect(bundle.inputs.some((file) => /lancedb|apache-arrow|@copilotkit/.test(file))).toBe(false);
    expect(bundle.bytes).toBeLessThan(2_000_000);

    // A runtime on loopback: mints keys, and answers the run as AG-UI events only with the key.
    const seen: { url: string; authorization?: string }[] = [];
    const runtime = createServer((req, res) => {
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
      req.resume();
      req.on('end', () => {
        if (req.url === '/not-the-api/admin/harness/keys') {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              key_id: 'hk_1',
              key: 'secret-1',
              tenant_id: 'acme:prod',
              expires_at: new Date(Date.now() + 3_600_000).toISOString(),
            }),
          );
          return;
        }
        if (req.url === '/ag-ui/search_agent' && req.headers.authorization === 'Bearer secret-1') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('id: 0\ndata: {"type":"RUN_STARTED"}\n\n');
          res.end('id: 1\ndata: {"type":"RUN_FINISHED"}\n\n');
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"detail":"Not Found"}');
      });
    });
    await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
    const { port } = runtime.address() as AddressInfo;
    const runtimeUrl = `http://127.0.0.1:${port}`;
    const host = await startLambdaHost({
      bundleDir: bundle.dir,
      dir,
      name: 'web-server',
      env: {
        // The API answers buffered routes; the stream is served apart, as a function URL is.
        TESSERA_RUNTIME_URL: `${runtimeUrl}/not-the-api`,
        TESSERA_RUNTIME_STREAM_URLS: JSON.stringify({ 'POST /ag-ui/{agent}': runtimeUrl }),
      },
    });
    try {
      // Well under the second a full runtime bundle takes; measured on a loaded 2-core machine.
      expect(host.importMs).toBeLessThan(3000);
      const event = (method: string, rawPath: string, body?: unknown) => ({
        version: '2.0',
        rawPath,
        rawQueryString: '',
        headers: { host: 'web.lambda-url.example', 'content-type': 'application/json' },
        requestContext: { http: { method, path: rawPath, sourceIp: '127.0.0.1' }, domainName: 'web.example' },
        body: body === undefined ? undefined : JSON.stringify(body),
        isBase64Encoded: false,
      });
      const health = await host.invoke('webServer', event('GET', '/healthz'));
      expect(health.metadata.statusCode).toBe(200);
      expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
      const run = await host.invoke(
        'webServer',
        event('POST', '/ui-api/copilotkit/agent/search_agent/run', {
          threadId: 't',
          runId: 'r',
          state: {},
          messages: [{ id: 'u', role: 'user', content: 'radium' }],
          tools: [],
          context: [],
          forwardedProps: { tenant_id: 'acme:prod' },
        }),
      );
      expect(run.metadata.statusCode).toBe(200);
      expect(run.body).toBe(
        'id: 0\ndata: {"type":"RUN_STARTED"}\n\nid: 1\ndata: {"type":"RUN_FINISHED"}\n\n',
      );
      expect(seen.map((s) => s.url)).toEqual(['/not-the-api/admin/harness/keys', '/ag-ui/search_agent']);
    } finally {
      host.stop();
      await new Promise<void>((resolve) => runtime.close(() => resolve()));
    }
  }, 300_000);
});
