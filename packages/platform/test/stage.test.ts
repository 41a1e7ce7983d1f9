import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { resourcePrefix, STAGE_MAX_LENGTH, STAGE_PATTERN } from '@tessera/platform/stage';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** S3's rule for bucket names, the strictest of the stores' (DynamoDB allows 255 characters, SQS 80). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

describe('resourcePrefix', () => {
  it('keeps a stage that already is a prefix', () => {
    for (const stage of ['local', 'prod', 'pr-12', 'dev2', 'a']) expect(resourcePrefix(stage)).toBe(stage);
  });

  it('lower-cases any other stage and adds a hash of it, so stages differing in case stay apart', () => {
    const john = resourcePrefix('JohnDoe');
    expect(john).toMatch(/^johndoe-[0-9a-f]{6}$/);
    expect(resourcePrefix('johndoe')).toBe('johndoe');
    expect(resourcePrefix('JOHNDOE')).not.toBe(john);
    expect(resourcePrefix('JohnDoe')).toBe(john);
  });

  it('gives every stage SST accepts a prefix that makes valid names in every store', () => {
    const stages = [
      'JohnDoe',
      'Feature-Branch-For-The-New-Search-Ranking-That-Is-Long',
      'A',
      'x'.repeat(STAGE_MAX_LENGTH),
      'Prod--2',
      'a-',
      '-a',
      '9lives',
    ];
    for (const stage of stages) {
      expect(stage, stage).toMatch(STAGE_PATTERN);
      const prefix = resourcePrefix(stage);
      expect(prefix.length, stage).toBeLessThanOrEqual(20);
      for (const name of ['uploads', 'search', 'ingestion-dead', 'schema-registry']) {
        expect(`tessera-${prefix}-${name}`, stage).toMatch(BUCKET_NAME);
        expect(`tessera-${prefix}-${name}`, stage).not.toContain('..');
      }
    }
  });
});

describe('TESSERA_STAGE', () => {
  /** Loads the platform's settings in a fresh process, as a function starts. */
  async function start(stage: string): Promise<{ ok: boolean; output: string }> {
    const script =
      "const { platformEnv, resourceName, tables } = await import('@tessera/platform');" +
      'console.log(JSON.stringify({ stage: platformEnv.stage, name: resourceName(tables.tenants) }));';
    try {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          cwd: repoRoot,
          env: { PATH: process.env.PATH, TESSERA_STAGE: stage, NODE_NO_WARNINGS: '1' },
        },
      );
      return { ok: true, output: stdout };
    } catch (error) {
      return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
    }
  }

  it('starts with a stage SST accepts that is no resource prefix, and names resources by its prefix', async () => {
    const { ok, output } = await start('JohnDoe');
    expect(ok, output).toBe(true);
    expect(JSON.parse(output)).toEqual({
      stage: 'JohnDoe',
      name: `tessera-${resourcePrefix('JohnDoe')}-tenants`,
    });
  });

  it('refuses a stage no deploy could have, naming the variable', async () => {
    const { ok, output } = await start('john doe');
    expect(ok).toBe(false);
    expect(output).toContain('Invalid platform settings: TESSERA_STAGE');
  });
});
