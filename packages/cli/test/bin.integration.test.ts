import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeRuntime, startFakeRuntime } from './support';

const BIN = fileURLToPath(new URL('../bin/tessera.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real launcher from an unrelated directory, with no TESSERA_* setting unless given. */
function tessera(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TESSERA_')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: tmpdir(), env: { ...base, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let runtime: FakeRuntime;
beforeEach(async () => {
  runtime = await startFakeRuntime();
});
afterEach(async () => {
  await runtime.close();
});

describe('bin/tessera.js (integration: child process and fake runtime)', () => {
  it('prints graph stats and exits 0', async () => {
    const run = await tessera(['graph', 'stats', '--url', runtime.url, '--tenant', 'acme']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').slice(0, 7)).toEqual([
      'Knowledge Graph (tenant: acme:acme)',
      '  Nodes: 6',
      '  Edges: 4',
      '',
      'Top nodes (by degree):',
      '  Node           Degree',
      '  load_settings  2',
    ]);
    expect(runtime.requests).toEqual([{ method: 'GET', path: '/graph/stats', query: { tenant_id: 'acme' } }]);
  });

  it('reads TESSERA_TENANT_ID and TESSERA_RUNTIME_URL and prints JSON with --json', async () => {
    const run = await tessera(['graph', 'search', 'config', '--top-k', '1', '--json'], {
      TESSERA_TENANT_ID: 'acme:acme',
      TESSERA_RUNTIME_URL: runtime.url,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ count: 1, nodes: [{ node_id: 'parse_config' }] });
    expect(runtime.requests[0]?.query).toEqual({ tenant_id: 'acme:acme', q: 'config', top_k: '1' });
  });

  it('exits 1 with a one-line reason for an unregistered tenant', async () => {
    const run = await tessera(['graph', 'path', 'a', 'b', '--url', runtime.url, '--tenant', 'nobody']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe("Tenant 'nobody' not registered. (HTTP 404)\n");
  });

  it('exits 1 on an invalid --depth without sending a request', async () => {
    const run = await tessera([
      'graph',
      'neighbors',
      'settings',
      '--depth',
      '9',
      '--url',
      runtime.url,
      '--tenant',
      'acme',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("--depth must be an integer from 1 to 3, got '9'.\n");
    expect(runtime.requests).toEqual([]);
  });

  it('exits 1 without a tenant and says how to give one', async () => {
    const run = await tessera(['graph', 'stats', '--url', runtime.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^No tenant given: pass --tenant <id> or set TESSERA_TENANT_ID\. .*POST \/admin\/tenants/,
    );
  });

  it('lists the graph commands in --help', async () => {
    const root = await tessera(['--help']);
    expect(root.code).toBe(0);
    expect(root.stdout).toMatch(/^Usage: tessera /);
    expect(root.stdout).toContain('graph');
    const graph = await tessera(['graph', '--help']);
    expect(graph.code).toBe(0);
    for (const command of [
      'stats',
      'search [options] <query>',
      'neighbors [options] <node>',
      'path [options] <source> <target>',
    ]) {
      expect(graph.stdout).toContain(command);
    }
  });

  it('fails at start with the variable named when TESSERA_RUNTIME_URL is not a URL', async () => {
    const run = await tessera(['graph', 'stats', '--tenant', 'acme'], { TESSERA_RUNTIME_URL: 'nowhere' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Invalid CLI settings: TESSERA_RUNTIME_URL: .*\n$/);
  });
});
