/**
 * The built function bundles, run as Lambda runs them (integration: starts the emulators and one process
 * per bundle). Each bundle is copied outside the repository and started in a fresh Node process with the
 * environment the stack gives its functions (read from the synthesized template, resource names mapped to
 * the emulators'), the search layer on NODE_PATH, and synthetic API Gateway, function URL and SQS events:
 * a tenant is created, a `.py`, a `.md` and a `.pdf` uploaded, the queue message processed by the worker
 * bundle, and the three found by search; every other bundle answers too.
 */

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { fallbackHandler, queueWorkers, routes, schedules, splitHandler } from '@tessera/functions/routes';
import { buckets, queues, resourceName, sqsClient, tables } from '@tessera/platform';
import {
  Api,
  type FunctionSettings,
  LAMBDA_CONFIG_DIR,
  ROUTER_EXPORT,
  Schedules,
  searchLayer,
  Workers,
} from '@tessera/stacks';
import { Template } from 'aws-cdk-lib/assertions';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsLoopback, startAwsLoopback } from './aws-loopback';
import { type LambdaHost, startLambdaHost } from './lambda-host';
import { compose, logicalId, testApps } from './support';

const STAGE = 'JohnDoe';
const STREAM_URL = 'https://stream-ingestion.lambda-url.us-east-1.on.aws/';
/** What the HTTP API's endpoint resolves to (`TESSERA_API_URL`): only its form is read here. */
const API_URL = 'https://api.execute-api.us-east-1.amazonaws.com';
const LLM_KEY = 'sk-from-ssm-7f3a';
const LLM_KEY_PARAMETER = '/tessera/johndoe/llm-key';

const PYTHON = [
  'import os.path',
  '',
  'class Ledger:',
  '    """Keeps the balance of an account."""',
  '',
  '    def deposit(self, amount):',
  '        return self.balance_after(amount)',
  '',
  'def reconcile_accounts(ledgers):',
  '    return [ledger.deposit(0) for ledger in ledgers]',
  '',
].join('\n');
const MARKDOWN = [
  '# Radium',
  'Marie Curie isolated radium in 1902 at the University of Paris.',
  'The element glows faintly blue in the dark.',
].join('\n\n');
const PDF_TEXT = ['Quarterly report', 'The observatory catalogued seventeen comets this quarter.'];

async function pdf(lines: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  lines.forEach((line, i) => {
    page.drawText(line, { x: 40, y: 740 - 14 * i, size: 10, font });
  });
  return doc.save();
}

/** An API Gateway HTTP API (payload 2.0) event, as the route `routeKey` receives it. */
function apiEvent(
  method: string,
  routePath: string,
  options: {
    path?: string;
    pathParameters?: Record<string, string>;
    query?: Record<string, string>;
    body?: unknown;
    raw?: { body: Buffer; contentType: string };
  } = {},
) {
  const rawPath = options.path ?? routePath;
  const headers: Record<string, string> = {};
  let body: string | undefined;
  let isBase64Encoded = false;
  if (options.raw) {
    headers['content-type'] = options.raw.contentType;
    body = options.raw.body.toString('base64');
    isBase64Encoded = true;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  return {
    version: '2.0',
    routeKey: `${method} ${routePath}`,
    rawPath,
    rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
    headers,
    queryStringParameters: options.query,
    pathParameters: options.pathParameters,
    requestContext: {
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'test',
      routeKey: `${method} ${routePath}`,
      stage: '$default',
    },
    body,
    isBase64Encoded,
  };
}

/** The body of an API answer, parsed. */
// biome-ignore lint/suspicious/noExplicitAny: JSON the tests assert field by field
const json = (answer: { statusCode: number; body: string }): any => JSON.parse(answer.body);

/** An OpenAI-compatible chat endpoint on loopback that finds no claims and records each request's key. */
async function startLlm(): Promise<{ url: string; keys: string[]; close: () => Promise<void> }> {
  const keys: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      keys.push(String(req.headers.authorization ?? ''));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'test',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: JSON.stringify({ claims: [] }) },
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    keys,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('function bundles run as Lambda runs them (integration)', () => {
  const apps = testApps();
  let emulators: Emulators;
  let aws: AwsLoopback;
  let llm: Awaited<ReturnType<typeof startLlm>>;
  let dir: string;
  /** One warm process per handler module. */
  const hosts = new Map<string, LambdaHost>();
  const host = (module: string) => hosts.get(module)!;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-bundles-'));
    emulators = await startLocalBackends(path.join(dir, 'data'));
    aws = await startAwsLoopback({ parameters: { [LLM_KEY_PARAMETER]: LLM_KEY } });
    llm = await startLlm();

    // The stack, with the deploy settings of an LLM endpoint whose key is kept in SSM.
    const settings: FunctionSettings = {
      environment: { TESSERA_LLM_BASE_URL: llm.url, TESSERA_LLM_MODEL: 'test-model' },
      secrets: { TESSERA_LLM_API_KEY: { parameterName: LLM_KEY_PARAMETER } },
    };
    const {
      stack,
      storage,
      queues: queueConstruct,
      functions,
    } = compose(apps.create(), 'BundlesTest', STAGE, undefined, settings);
    const api = new Api(stack, 'Api', { functions });
    const workers = new Workers(stack, 'Workers', { functions, storage, queues: queueConstruct });
    const scheduled = new Schedules(stack, 'Schedules', { functions });
    const resources = Template.fromStack(stack).toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, never> }
    >;

    // What the template's references name, here: the emulators' resources, a stream URL, a local index.
    const names = new Map<string, string>();
    for (const key of Object.keys(tables) as (keyof typeof tables)[])
      names.set(logicalId(stack, storage.tables[key]), resourceName(tables[key]));
    for (const key of Object.keys(buckets) as (keyof typeof buckets)[])
      names.set(logicalId(stack, storage.buckets[key]), resourceName(buckets[key]));
    for (const key of Object.keys(queues) as (keyof typeof queues)[]) {
      names.set(logicalId(stack, queueConstruct.queues[key]), resourceName(queues[key]));
      names.set(
        logicalId(stack, queueConstruct.deadLetterQueues[key]!),
        resourceName(queues[key].deadLetter),
      );
    }
    const resolve = (value: unknown): string => {
      if (typeof value === 'string') return value;
      const token = value as Record<string, unknown>;
      if ('Ref' in token) return names.get(token.Ref as string) ?? `unresolved ${token.Ref}`;
      if ('Fn::GetAtt' in token) {
        const [id, attribute] = token['Fn::GetAtt'] as [string, string];
        if (attribute === 'FunctionUrl') return STREAM_URL;
        if (attribute === 'ApiEndpoint') return API_URL;
        return names.get(id) ?? `unresolved ${id}.${attribute}`;
      }
      if ('Fn::Join' in token) {
        const [separator, parts] = token['Fn::Join'] as [string, unknown[]];
        return parts.map(resolve).join(separator);
      }
      throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
    };

    // The Lambda runtime's own AWS SDK, which the bundles load the SSM and Secrets Manager clients from.
    const runtimeSdk = path.join(dir, 'runtime-sdk', 'node_modules', '@aws-sdk');
    mkdirSync(runtimeSdk, { recursive: true });
    for (const client of ['client-ssm', 'client-secrets-manager']) {
      const source = path.dirname(createRequire(import.meta.url).resolve(`@aws-sdk/${client}/package.json`));
      symlinkSync(source, path.join(runtimeSdk, client));
    }
    const nodePath = [
      path.join(searchLayer().dir, 'nodejs', 'node_modules'),
      path.join(dir, 'runtime-sdk', 'node_modules'),
    ].join(path.delimiter);

    const byModule = new Map<string, { variables: Record<string, unknown> }>();
    const all = [
      { fn: api.functions.get('$default')!, handler: fallbackHandler },
      ...routes.map((route) => ({
        fn: api.functions.get(`${route.method} ${route.path}`)!,
        handler: route.handler,
      })),
      ...queueWorkers.map((worker) => ({ fn: workers.functions.get(worker.name)!, handler: worker.handler })),
      ...schedules.map((schedule) => ({
        fn: scheduled.functions.get(schedule.name)!,
        handler: schedule.handler,
      })),
    ];
    for (const { fn, handler } of all) {
      const module = splitHandler(handler).module;
      // The streaming functions of a module lack the stream URLs; take a non-streaming one's where there is one.
      const variables: Record<string, unknown> = (
        resources[logicalId(stack, fn)]!.Properties.Environment as unknown as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      const known = byModule.get(module);
      if (!known || Object.keys(variables).length > Object.keys(known.variables).length)
        byModule.set(module, { variables });
    }
    // The bundles the stack's functions ship: a module of API routes with its router.
    const bundles = new Map([...byModule.keys()].map((module) => [module, functions.bundleOf(module)!]));
    const running = await Promise.all(
      [...byModule].map(async ([module, { variables }]) => {
        const env: Record<string, string> = {
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!,
          AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY!,
          AWS_ENDPOINT_URL_DYNAMODB: emulators.gateway,
          AWS_ENDPOINT_URL_SQS: emulators.gateway,
          AWS_ENDPOINT_URL_S3: emulators.gateway,
          AWS_ENDPOINT_URL_SSM: aws.url,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.url,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          NODE_PATH: nodePath,
          NODE_NO_WARNINGS: '1',
          TESSERA_ENTITY_THREADS: '0',
        };
        for (const [name, value] of Object.entries(variables)) env[name] = resolve(value);
        const name = module.replace('/', '-');
        // Lambda unpacks the code at /var/task: here the copy's own directory.
        expect(env.TESSERA_CONFIG_DIR).toBe(LAMBDA_CONFIG_DIR);
        env.TESSERA_CONFIG_DIR = path.join(dir, 'functions', name, 'configs');
        if (env.TESSERA_SEARCH_URI) env.TESSERA_SEARCH_URI = path.join(dir, 'lancedb');
        const lambda = await startLambdaHost({
          bundleDir: bundles.get(module)!.dir,
          dir: path.join(dir, 'functions'),
          name,
          env,
        });
        return [module, lambda] as const;
      }),
    );
    for (const [module, lambda] of running) hosts.set(module, lambda);
  }, 300_000);

  afterAll(async () => {
    for (const started of hosts.values()) started.stop();
    await llm?.close();
    await aws?.close();
    await emulators?.stop();
    apps.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts every bundle, each in a process of its own outside the repository', () => {
    const modules = new Set(
      [fallbackHandler, ...routes.map((r) => r.handler), ...schedules.map((s) => s.handler)]
        .concat(queueWorkers.map((w) => w.handler))
        .map((handler) => splitHandler(handler).module),
    );
    expect([...hosts.keys()].sort()).toEqual([...modules].sort());
    const times = [...hosts].map(([module, started]) => `${module} ${Math.round(started.importMs)} ms`);
    process.stdout.write(`Bundle imports: ${times.join(', ')}\n`);
  });

  it('answers health with every backing service ok', async () => {
    const answer = await host('http/health').invoke(ROUTER_EXPORT, apiEvent('GET', '/health'));
    expect(answer.statusCode, answer.body).toBe(200);
    expect(json(answer)).toMatchObject({
      status: 'ok',
      services: {
        dynamodb: { status: 'ok' },
        s3: { status: 'ok' },
        sqs: { status: 'ok' },
        search_backend: { status: 'ok' },
      },
    });
  });

  describe('a tenant, three uploads of three kinds, the worker, search', () => {
    let jobId: string;
    const tenant = 'acme:docs';

    beforeAll(async () => {
      const created = await host('http/tenants').invoke(
        ROUTER_EXPORT,
        apiEvent('POST', '/admin/tenants', { body: { tenant_id: tenant } }),
      );
      expect(created.statusCode, created.body).toBe(201);

      const form = new FormData();
      form.set('tenant_id', tenant);
      form.append('file', new Blob([PYTHON]), 'src/ledger.py');
      form.append('file', new Blob([MARKDOWN]), 'notes/radium.md');
      form.append('file', new Blob([await pdf(PDF_TEXT)]), 'reports/q3.pdf');
      const request = new Request('http://upload', { method: 'POST', body: form });
      const upload = await host('http/ingestion').invoke(
        ROUTER_EXPORT,
        apiEvent('POST', '/ingestion/upload', {
          raw: {
            body: Buffer.from(await request.arrayBuffer()),
            contentType: request.headers.get('content-type')!,
          },
        }),
      );
      expect(upload.statusCode, upload.body).toBe(202);
      const queued = json(upload);
      jobId = queued.job_id;
      // In AWS the stream is a function URL of its own: that is the URL handed out.
      expect(queued.events_url).toBe(`${STREAM_URL.replace(/\/$/, '')}/events/ingestion/${jobId}`);

      // Lambda's event source mapping: receive, invoke the worker with the SQS event, delete on success,
      // until the queue is empty. The queue also carries the bucket's notifications (S3 sends a test event
      // when the notification is configured), which the worker takes and lets go.
      const sqs = sqsClient();
      const { QueueUrl } = await sqs.send(
        new GetQueueUrlCommand({ QueueName: resourceName(queues.ingestion) }),
      );
      let handled = 0;
      for (let empty = 0; empty < 2; ) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: handled === 0 ? 5 : 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (Messages.length === 0) {
          empty += 1;
          continue;
        }
        const answer = await host('workers/ingestion').invoke('processJobs', {
          Records: Messages.map((message) => ({
            messageId: message.MessageId,
            receiptHandle: message.ReceiptHandle,
            body: message.Body,
            attributes: {
              ApproximateReceiveCount: '1',
              SentTimestamp: String(Date.now()),
              SenderId: 'test',
              ApproximateFirstReceiveTimestamp: String(Date.now()),
            },
            messageAttributes: {},
            md5OfBody: message.MD5OfBody ?? '',
            eventSource: 'aws:sqs',
            eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${resourceName(queues.ingestion)}`,
            awsRegion: 'us-east-1',
          })),
        });
        expect(answer, host('workers/ingestion').stderr()).toEqual({ batchItemFailures: [] });
        for (const message of Messages) {
          await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
        }
        handled += Messages.length;
      }
      expect(handled).toBeGreaterThan(0);
    }, 300_000);

    it('indexes all three files in the worker bundle, code parsed by tree-sitter from the shipped .wasm', async () => {
      const status = await host('http/ingestion').invoke(
        ROUTER_EXPORT,
        apiEvent('GET', '/ingestion/{job_id}/events', {
          path: `/ingestion/${jobId}/events`,
          pathParameters: { job_id: jobId },
        }),
      );
      expect(status.statusCode, status.body).toBe(200);
      const job = json(status);
      expect(job.state, status.body).toBe('complete');
      const files = new Map(
        (
          job.result.files as {
            source_doc_id: string;
            status: string;
            chunks_created: number;
            error?: string;
          }[]
        ).map((file) => [file.source_doc_id, file]),
      );
      for (const name of ['src/ledger.py', 'notes/radium.md', 'reports/q3.pdf']) {
        expect(files.get(name), `${name}: ${status.body}`).toMatchObject({ status: 'indexed' });
        expect(files.get(name)!.chunks_created, name).toBeGreaterThan(0);
      }
      expect(status.body).not.toContain('GrammarUnavailable');
    });

    it('read the LLM key from SSM before loading the extractors, and sent it to the endpoint', () => {
      expect(aws.calls).toContain('SSM.GetParameter');
      expect(llm.keys.length).toBeGreaterThan(0);
      expect(new Set(llm.keys)).toEqual(new Set([`Bearer ${LLM_KEY}`]));
    });

    it('finds each file through the search bundle, the code cut along the definitions tree-sitter found', async () => {
      const search = async (query: string, profile: string) => {
        const answer = await host('http/search').invoke(
          ROUTER_EXPORT,
          apiEvent('POST', '/search', { body: { query, tenant_id: tenant, profile, top_k: 5 } }),
        );
        expect(answer.statusCode, answer.body).toBe(200);
        return json(answer).results as { source_doc_id: string; fields: Record<string, unknown> }[];
      };
      const code = await search('reconcile accounts ledger deposit', 'code_lateon_mv');
      expect(code.map((result) => result.source_doc_id)).toContain('src/ledger.py');
      expect(code.map((result) => result.fields)).toContainEqual(
        expect.objectContaining({ symbol: 'reconcile_accounts', kind: 'function', language: 'python' }),
      );
      const sources = async (query: string) =>
        (await search(query, 'document_text_semantic')).map((result) => result.source_doc_id);
      expect(await sources('radium isolated Curie')).toContain('notes/radium.md');
      expect(await sources('observatory comets quarter')).toContain('reports/q3.pdf');
    });

    it('answers graph queries through the graph bundle, with the entities the worker found', async () => {
      const answer = await host('http/graph').invoke(
        ROUTER_EXPORT,
        apiEvent('GET', '/graph/search', { query: { tenant_id: tenant, q: 'Marie Curie' } }),
      );
      expect(answer.statusCode, answer.body).toBe(200);
      expect((json(answer).nodes as { node_id: string }[]).map((node) => node.node_id)).toContain(
        'marie_curie',
      );
    });

    it("answers a knowledge route through its bundle, the tenant's graph bound", async () => {
      const answer = await host('http/knowledge').invoke(
        'traverse',
        apiEvent('POST', '/admin/tenants/{tenant_full_id}/knowledge/graph/traverse', {
          path: `/admin/tenants/${tenant}/knowledge/graph/traverse`,
          pathParameters: { tenant_full_id: tenant },
          body: { start_subject_key: 'Marie Curie', depth: 1 },
        }),
      );
      expect(answer.statusCode, answer.body).toBe(200);
      expect(json(answer)).toMatchObject({ graph_bound: true, start_node_id: 'marie_curie' });
    });

    it('runs an agent from the long-run function URL event, which carries no path parameters', async () => {
      const event = {
        ...apiEvent('POST', '/agents/{agent_name}/process', {
          path: '/agents/search_agent/process',
          body: {
            query: 'radium isolated Curie',
            context: { tenant_id: tenant, profile: 'document_text_semantic' },
          },
        }),
        routeKey: '$default',
        pathParameters: undefined,
      };
      const answer = await host('http/agents').invoke('processLongRun', event);
      expect(answer.statusCode, answer.body).toBe(200);
      const body = json(answer);
      expect(body).toMatchObject({ status: 'completed', agent: 'search_agent' });
      expect(body.result.results.map((hit: { source_doc_id: string }) => hit.source_doc_id)).toContain(
        'notes/radium.md',
      );
    });

    it("streams the job's events from a function URL event, which carries no path parameters", async () => {
      const answer = await host('http/events').invoke('ingestionEvents', {
        version: '2.0',
        routeKey: '$default',
        rawPath: `/events/ingestion/${jobId}`,
        rawQueryString: '',
        headers: { accept: 'text/event-stream' },
        requestContext: { http: { method: 'GET', path: `/events/ingestion/${jobId}` } },
        isBase64Encoded: false,
      });
      expect(answer.metadata.statusCode).toBe(200);
      const types = (answer.body as string)
        .split('\n\n')
        .filter((frame) => frame.includes('data: '))
        .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)).type);
      expect(types[0]).toBe('connected');
      // The job's last event, then the end frame a stream over for good closes with.
      expect(types.at(-2)).toBe('complete');
      expect(types.at(-1)).toBe('end');
    });
  });

  it("serves a module's routes from its one function's router, and refuses a route key it does not serve", async () => {
    const organizations = host('http/organizations');
    const created = await organizations.invoke(
      ROUTER_EXPORT,
      apiEvent('POST', '/admin/organizations', { body: { org_id: 'routed_org', org_name: 'Routed' } }),
    );
    expect(created.statusCode, created.body).toBe(201);
    const get = (orgId: string) =>
      organizations.invoke(
        ROUTER_EXPORT,
        apiEvent('GET', '/admin/organizations/{org_id}', {
          path: `/admin/organizations/${orgId}`,
          pathParameters: { org_id: orgId },
        }),
      );
    const fetched = await get('routed_org');
    expect(fetched.statusCode, fetched.body).toBe(200);
    expect(json(fetched)).toMatchObject({ org_id: 'routed_org', org_name: 'Routed', tenant_count: 0 });
    // A route's own 404 names what it did not find; the router's is the plain one of an unknown route.
    const unknownOrg = await get('nobody');
    expect(unknownOrg.statusCode, unknownOrg.body).toBe(404);
    expect(json(unknownOrg).detail).toMatch(/nobody/);
    for (const routeKey of [
      'GET /admin/tenants/{tenant_full_id}',
      'PATCH /admin/organizations',
      '$default',
    ]) {
      const refused = await organizations.invoke(ROUTER_EXPORT, {
        ...apiEvent('GET', '/admin/organizations'),
        routeKey,
      });
      expect(refused, routeKey).toMatchObject({ statusCode: 404 });
      expect(json(refused), routeKey).toEqual({ detail: 'Not Found' });
    }
    // The module's own exports stay, as the local runtime calls them.
    const listed = await organizations.invoke('listOrganizations', apiEvent('GET', '/admin/organizations'));
    expect(json(listed).organizations.map((org: { org_id: string }) => org.org_id)).toContain('routed_org');
  });

  it('answers the admin, schema and fallback routes', async () => {
    const organizations = await host('http/organizations').invoke(
      ROUTER_EXPORT,
      apiEvent('GET', '/admin/organizations'),
    );
    expect(organizations.statusCode, organizations.body).toBe(200);
    const drift = await host('http/schemas').invoke(ROUTER_EXPORT, apiEvent('GET', '/admin/schemas/drift'));
    expect(drift.statusCode, drift.body).toBe(200);
    const missing = await host('http/fallback').invoke('notFound', apiEvent('GET', '/nowhere'));
    expect(missing.statusCode).toBe(404);
  });

  it('runs the scheduled and dead-letter handlers', async () => {
    expect(await host('workers/maintenance').invoke('sweepTaskEvents', {})).toMatchObject({ swept: 0 });
    expect(await host('workers/maintenance').invoke('recoverTenants', {})).toEqual({ recovered: [] });
    expect(await host('workers/maintenance').invoke('migrateSchemas', {})).toBeTypeOf('object');
    expect(await host('workers/ingestion').invoke('recoverJobs', { idleSeconds: 3600 })).toEqual({
      requeued: [],
    });
    expect(await host('workers/ingestion').invoke('deadLetters', { Records: [] })).toBeDefined();
  });
});
