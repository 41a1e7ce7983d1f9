/**
 * `tessera provision` against a running local runtime: the CLI finds the runtime's emulators through its data
 * directory, runs each step in process, and answers one line with exit 0, or one line naming the cause with
 * exit 1.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { closedPortUrl, type OtlpReceiver, startOtlpReceiver } from '@tessera/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
let rt: RuntimeProcess;
let collector: OtlpReceiver;

/** The CLI with the runtime's data directory, no AWS endpoint and no collector unless given. */
async function provision(args: string[], env: Record<string, string> = {}) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('TESSERA_') && !key.startsWith('AWS_ENDPOINT'),
    ),
  );
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(root, 'packages/cli/bin/tessera.js'), 'provision', ...args],
      { env: { ...base, TESSERA_DATA_DIR: rt.dataDir, TESSERA_LOG_LEVEL: 'error', ...env }, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const oneLine = (text: string) => text.trim().split('\n').length === 1;

beforeAll(async () => {
  collector = await startOtlpReceiver();
  rt = await spawnRuntime();
  expect(
    (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme:prod', base_schemas: ['wiki'] })).status,
  ).toBe(201);
});

afterAll(async () => {
  await rt?.stop();
  await collector?.close();
});

describe('tessera provision (integration)', () => {
  it('deploys and verifies the listed profiles’ schemas, creates the memory schema and stores the tier', async () => {
    const schemas = await provision([
      '--tenant-id',
      'acme:prod',
      '--step',
      'schemas',
      '--profiles',
      'document_text_semantic',
    ]);
    expect(schemas).toMatchObject({
      code: 0,
      stdout: 'Deployed 1 schema(s) for acme:prod: document_text_acme_prod\n',
    });
    const verify = await provision([
      '--tenant-id',
      'acme:prod',
      '--step',
      'verify',
      '--profiles',
      'document_text_semantic',
    ]);
    expect(verify).toMatchObject({
      code: 0,
      stdout: 'Verified 1 schema(s) for acme:prod: document_text_acme_prod (0 documents)\n',
    });
    // The runtime serves the schema the CLI deployed.
    const tenant = await call(rt.url, 'GET', '/admin/tenants/acme:prod');
    expect(tenant.body.schemas_deployed).toContain('document_text');
    const memory = await provision(['--tenant-id', 'acme:prod', '--step', 'memory']);
    expect(memory).toMatchObject({
      code: 0,
      stdout: 'Memory schema agent_memories_acme_prod ready for acme:prod\n',
    });
    const tier = await provision(['--tenant-id', 'acme:prod', '--step', 'tier', '--tier', 'pro']);
    expect(tier).toMatchObject({ code: 0, stdout: 'Tier of acme:prod set to pro\n' });
    expect((await call(rt.url, 'GET', '/admin/tenants/acme:prod/tier')).body.tier).toBe('pro');
  });

  it('creates the tenant’s telemetry project at the collector, and fails in one line without one or when it is down', async () => {
    const missing = await provision(['--tenant-id', 'acme:prod', '--step', 'telemetry']);
    expect(missing).toMatchObject({
      code: 1,
      stderr: 'telemetry step failed: telemetry collector not configured\n',
    });
    const down = await closedPortUrl();
    const unreachable = await provision(['--tenant-id', 'acme:prod', '--step', 'telemetry'], {
      TESSERA_TELEMETRY_URL: down,
      TESSERA_TELEMETRY_EXPORT_TIMEOUT_MS: '500',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(new RegExp(`^telemetry step failed: telemetry collector at ${down} `));
    expect(oneLine(unreachable.stderr)).toBe(true);
    const created = await provision(['--tenant-id', 'acme:prod', '--step', 'telemetry'], {
      TESSERA_TELEMETRY_URL: collector.url,
    });
    expect(created).toMatchObject({
      code: 0,
      stdout: `Telemetry project tessera-acme:prod created at ${collector.url}\n`,
    });
    expect(collector.spans.at(-1)?.resource['openinference.project.name']).toBe('tessera-acme:prod');
  });

  it('fails in one line with exit 1 for a bad step, a missing tier, an unknown profile or tenant', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--tenant-id', 'acme:prod', '--step', 'cook'],
        /^Unknown step 'cook': expected one of schemas, verify, memory, telemetry, tier$/,
      ],
      [['--tenant-id', 'acme:prod', '--step', 'tier'], /^The tier step needs --tier <tier>$/],
      [
        ['--tenant-id', 'acme:prod', '--step', 'schemas', '--profiles', 'document_text_semantic,nope'],
        /^schemas step failed: Profile 'nope' not found for tenant 'acme:prod'; no schema was deployed$/,
      ],
      [
        ['--tenant-id', 'ghost:town', '--step', 'memory'],
        /^memory step failed: Tenant 'ghost:town' not registered\.$/,
      ],
      [
        ['--tenant-id', 'acme:prod', '--step', 'verify', '--profiles', 'image_colpali_mv'],
        /^verify step failed: Schema 'image_acme_prod' of profile 'image_colpali_mv' has no registry row$/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await provision(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.trim()).toMatch(message);
      expect(oneLine(result.stderr), result.stderr).toBe(true);
    }
  });
});
