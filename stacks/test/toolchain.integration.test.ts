/**
 * The deploy toolchain, offline (integration: starts processes and a loopback AWS endpoint): the CDK
 * toolkit that `sst deploy` drives reaches AWS, and `cdk synth` writes the app's templates without any AWS
 * call, which cfn-lint passes without an error.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { queueWorkers, routes, schedules, splitHandler, stepFunctions } from '@tessera/functions/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, type AwsLoopback, startAwsLoopback } from './aws-loopback';

const run = promisify(execFile);

/**
 * The functions of the route table: one per handler module of API routes, one per stream and long run, the
 * fallback, schedules, queue workers, step functions and the job-run function.
 */
const OUR_FUNCTIONS =
  new Set(routes.filter((route) => !route.streaming).map((route) => splitHandler(route.handler).module))
    .size +
  routes.filter((route) => route.streaming).length +
  routes.filter((route) => route.longRun).length +
  1 +
  schedules.length +
  queueWorkers.length +
  stepFunctions.length +
  1;
const repoRoot = path.resolve(import.meta.dirname, '../..');

/**
 * What `sst deploy` does before it deploys anything (sst/credentials.js, sst/stacks/deploy.js): the CDK
 * toolkit's SDK provider on SST's credential chain resolves the account, then reads the bootstrap
 * version from SSM. With the toolkit's SDK clients of SST's older line and its `@smithy` retry of the newer
 * one, both failed: "Unable to resolve AWS account", "Cannot read properties of undefined (reading 'includes')".
 */
const SST_TOOLKIT_PROBE = `
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const fromSst = createRequire(path.join(process.argv[1], 'node_modules/sst/package.json'));
const toolkit = path.dirname(fromSst.resolve('@aws-cdk/toolkit-lib'));
const load = (file) => import(pathToFileURL(path.join(toolkit, file)).href);
const { SdkProvider } = await load('api/aws-auth/sdk-provider.js');
const { IoHelper } = await load('api/io/private/io-helper.js');
const { Mode } = await load('api/plugin/mode.js');
const { fromNodeProviderChain } = fromSst('@aws-sdk/credential-providers');
const region = 'us-east-1';
const provider = new SdkProvider(fromNodeProviderChain({ parentClientConfig: { region } }), region, {
  ioHelper: IoHelper.fromActionAwareIoHost({ notify: async () => {}, requestResponse: async () => {} }),
});
const out = {};
try {
  const env = await provider.resolveEnvironment({ account: 'unknown-account', region, name: 'aws://unknown-account/' + region });
  out.account = env.account;
  const { sdk } = await provider.forEnvironment(env, Mode.ForReading);
  out.version = (await sdk.ssm().getParameter({ Name: '/cdk-bootstrap/hnb659fds/version' })).Parameter?.Value;
} catch (error) {
  out.error = String(error?.message ?? error);
}
process.stdout.write(JSON.stringify(out));
`;

/** An environment with nothing of the developer's: no credentials, no profile, no endpoint. */
function isolatedEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: mkdtempSync(path.join(tmpdir(), 'tessera-home-')),
    NODE_NO_WARNINGS: '1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...extra,
  };
}

describe('the CDK toolkit sst deploy drives (integration)', () => {
  let aws: AwsLoopback;

  beforeAll(async () => {
    aws = await startAwsLoopback({ parameters: { '/cdk-bootstrap/hnb659fds/version': '28' } });
  });

  afterAll(async () => {
    await aws?.close();
  });

  it('resolves the account and reads the bootstrap version through its own SDK clients', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', SST_TOOLKIT_PROBE, repoRoot],
      {
        cwd: tmpdir(),
        env: isolatedEnv({
          AWS_ACCESS_KEY_ID: 'AKIATEST',
          AWS_SECRET_ACCESS_KEY: 'test',
          AWS_REGION: 'us-east-1',
          AWS_ENDPOINT_URL: aws.url,
        }),
      },
    );
    expect(JSON.parse(stdout)).toEqual({ account: ACCOUNT, version: '28' });
    expect(aws.calls).toContain('STS.GetCallerIdentity');
    expect(aws.calls).toContain('SSM.GetParameter');
  });
});

describe('sst build (integration)', () => {
  let aws: AwsLoopback;
  let root: string;

  beforeAll(async () => {
    // The bootstrap stacks as they stand once an account is bootstrapped; nothing else answers.
    aws = await startAwsLoopback({
      stacks: {
        CDKToolkit: { BootstrapVersion: '28', BucketName: `cdk-hnb659fds-assets-${ACCOUNT}-us-east-1` },
        SSTBootstrap: { Version: '7.4', BucketName: 'sstbootstrap-assets' },
      },
      parameters: { '/cdk-bootstrap/hnb659fds/version': '28' },
    });
    root = mkdtempSync(path.join(tmpdir(), 'tessera-sst-'));
  });

  afterAll(async () => {
    await aws?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('synthesizes the stack, asking AWS only who the caller is and whether it is bootstrapped', async () => {
    const out = path.join(root, 'out');
    await run(path.join(repoRoot, 'node_modules/.bin/sst'), ['build', '--stage', 'JohnDoe', '--to', out], {
      cwd: repoRoot,
      env: isolatedEnv({
        AWS_ACCESS_KEY_ID: 'AKIATEST',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL: aws.url,
        SST_TELEMETRY_DISABLED: '1',
      }),
      timeout: 240_000,
    });
    const template = JSON.parse(
      readFileSync(path.join(out, 'JohnDoe-tessera-Tessera.template.json'), 'utf8'),
    );
    const functions = Object.values(template.Resources as Record<string, { Type: string }>).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function',
    );
    expect(functions.length).toBeGreaterThanOrEqual(OUR_FUNCTIONS);
    expect(new Set(aws.calls)).toEqual(
      new Set([
        'STS.GetCallerIdentity',
        'CloudFormation.DescribeStacks CDKToolkit',
        'CloudFormation.DescribeStacks SSTBootstrap',
      ]),
    );
  }, 300_000);
});

describe('cdk synth (integration)', () => {
  let out: string;
  let template: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  const stage = 'JohnDoe';

  beforeAll(async () => {
    out = mkdtempSync(path.join(tmpdir(), 'tessera-synth-'));
    // Nothing listens at the endpoint and there are no credentials: any AWS call would fail the synth.
    await run(
      path.join(repoRoot, 'node_modules/.bin/cdk'),
      [
        'synth',
        '--quiet',
        '--no-notices',
        '--no-version-reporting',
        '-c',
        `stage=${stage}`,
        '-c',
        'templates-only=true',
        '-o',
        out,
      ],
      {
        cwd: repoRoot,
        env: isolatedEnv({ AWS_ENDPOINT_URL: 'http://127.0.0.1:9', CDK_DISABLE_CLI_TELEMETRY: 'true' }),
        timeout: 240_000,
      },
    );
    template = JSON.parse(readFileSync(path.join(out, `${stage}-tessera-Tessera.template.json`), 'utf8'));
  }, 300_000);

  afterAll(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it("writes the stack SST deploys, under SST's name, offline, with a stage that is no resource prefix", () => {
    expect(readdirSync(out).filter((file) => file.endsWith('.template.json'))).toEqual([
      `${stage}-tessera-Tessera.template.json`,
    ]);
    const functions = Object.values(template.Resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function',
    );
    // Ours, and CDK's handler of bucket notifications.
    expect(functions).toHaveLength(OUR_FUNCTIONS + 1);
    const stages = new Set(
      functions.map(
        (fn) =>
          (fn.Properties.Environment as { Variables?: Record<string, unknown> })?.Variables?.TESSERA_STAGE,
      ),
    );
    expect([...stages].filter(Boolean)).toEqual([stage]);
  });

  it('passes cfn-lint without an error', async () => {
    const templates = readdirSync(out)
      .filter((file) => file.endsWith('.template.json'))
      .map((file) => path.join(out, file));
    let output = '';
    let failed = false;
    try {
      ({ stdout: output } = await run(
        'cfn-lint',
        ['--format', 'parseable', '--non-zero-exit-code', 'error', ...templates],
        { maxBuffer: 64 * 1024 * 1024 },
      ));
    } catch (error) {
      const failure = error as { code?: unknown; stdout?: string; message: string };
      if (failure.code === 'ENOENT') throw new Error('cfn-lint is not installed: pip install cfn-lint');
      failed = true;
      output = failure.stdout ?? failure.message;
    }
    const errors = output.split('\n').filter((line) => /:E\d{4}:/.test(line));
    expect(errors).toEqual([]);
    expect(failed, output).toBe(false);
    // cfn-lint takes some 12 s of CPU over the whole template: minutes on a loaded machine.
  }, 180_000);
});
