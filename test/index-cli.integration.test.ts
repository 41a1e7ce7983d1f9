import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RuntimeClient } from '@tessera/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_BYTES, uploadBatch } from '../packages/cli/src/uploads';
import type { WalkedFile } from '../packages/cli/src/walk';
import { upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
let rt: RuntimeProcess;

async function tessera(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return tesseraAt(rt.url, ...args);
}

async function tesseraAt(
  url: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(root, 'packages/cli/bin/tessera.js'), ...args, '--url', url],
      { env: { ...process.env, TESSERA_TENANT_ID: 'acme' } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'repo-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

const sources = {
  '.gitignore': 'build/\n',
  'src/billing.ts': [
    "import { round } from './math';",
    '/** Totals an invoice with tax. */',
    'export function invoiceTotal(lines: number[], tax: number): number {',
    '  return round(lines.reduce((a, b) => a + b, 0) * (1 + tax));',
    '}',
  ].join('\n'),
  'src/math.ts':
    'export function round(value: number): number {\n  return Math.round(value * 100) / 100;\n}\n',
  'tools/report.py': 'def monthly_report(rows):\n    """Sums the rows of a month."""\n    return sum(rows)\n',
  'cmd/main.go':
    'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(greet())\n}\n\nfunc greet() string { return "hi" }\n',
  'build/bundle.js': 'var ignored = true;',
  'README.md': 'Maintained by Grace Hopper in Arlington.',
};

beforeAll(async () => {
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
});

afterAll(async () => {
  await rt?.stop();
});

describe('tessera index (integration)', () => {
  it('indexes a tree, extracts its graph, and skips unchanged files on a second run', async () => {
    const dir = repo(sources);
    const first = await tessera('index', dir, '--type', 'code');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Found 4 code files in \//);
    expect(lines[1]).toBe('Indexed 4/4 files');
    expect(lines[2]).toMatch(/^ {2}Chunks created: [1-9]\d*$/);
    expect(lines[3]).toMatch(/^ {2}Documents fed: [1-9]\d*$/);
    expect(lines[4]).toMatch(/^ {2}Graph: [1-9]\d* nodes, [1-9]\d* edges$/);
    expect(lines).toHaveLength(5);

    const code = await call(rt.url, 'POST', '/search/', {
      query: 'invoice total tax',
      tenant_id: 'acme',
      profile: 'code_lateon_mv',
      top_k: 3,
    });
    expect(code.body.results[0]).toMatchObject({ source_doc_id: 'src/billing.ts' });
    const calls = await call(rt.url, 'GET', '/graph/neighbors?tenant_id=acme&node=invoiceTotal');
    expect(calls.body.out_edges).toEqual(
      expect.arrayContaining([expect.objectContaining({ target_node_id: 'round', relation: 'calls' })]),
    );
    // The README is a text sibling: its entities become nodes.
    const people = await call(rt.url, 'GET', '/graph/search?tenant_id=acme&q=Grace%20Hopper');
    expect(people.body.nodes.map((n: { node_id: string }) => n.node_id)).toContain('grace_hopper');

    const second = await tessera('index', dir, '--type', 'code', '--json');
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary).toMatchObject({
      files_found: 4,
      files_indexed: 4,
      files_skipped: 4,
      documents_fed: 0,
      errors: [],
    });

    writeFileSync(
      path.join(dir, 'src/math.ts'),
      'export function round(v: number): number {\n  return Math.round(v);\n}\n',
    );
    const third = await tessera('index', dir);
    expect(third.stdout).toContain('Indexed 4/4 files');
    expect(third.stdout).toContain('  Skipped (unchanged): 3');
  });

  it('reports files the server could not index with their reason', async () => {
    const dir = repo({ 'good.js': 'function ok() { return 1; }', 'bad.js': '\n\n  \n' });
    const answer = await tessera('index', dir);
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain('Indexed 1/2 files');
    expect(answer.stdout).toContain('  Errors: 1');
    expect(answer.stdout).toMatch(/ {4}bad\.js: bad\.js holds no code to index/);
  });

  it('reports a file the server refuses (over its upload cap) and indexes the rest of its batch', async () => {
    const capped = await spawnRuntime({ env: { TESSERA_UPLOAD_MAX_BYTES: '4000' } });
    try {
      expect((await call(capped.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
      const dir = repo({
        'small.py': 'def small():\n    return 1\n',
        'large.py': `def large():\n    return ${JSON.stringify('x'.repeat(5000))}\n`,
        'parity.go': 'package main\n\nfunc parityCheck(n int) bool { return n%2 == 0 }\n',
      });
      const answer = await tesseraAt(capped.url, 'index', dir);
      expect(answer.stderr).toBe('');
      expect(answer.code).toBe(0);
      expect(answer.stdout).toContain('Indexed 2/3 files');
      expect(answer.stdout).toContain('  Errors: 1');
      expect(answer.stdout).toMatch(/ {4}large\.py: .*upload limit of 4000 bytes \(HTTP 413\)/);
      const found = await call(capped.url, 'POST', '/search/', {
        query: 'parity check',
        tenant_id: 'acme',
        profile: 'code_lateon_mv',
      });
      expect(found.body.results.map((r: { fields: { path: string } }) => r.fields.path)).toContain(
        'parity.go',
      );
    } finally {
      await capped.stop();
    }
  });

  it('uploads a file too large for a request of its own through the presigned route', async () => {
    // 4.7 MB: 6.27 MB base64-encoded, more than Lambda takes through API Gateway: no direct upload carries it.
    const rows = Array.from({ length: 30_000 }, (_, i) => `    ${JSON.stringify(`row ${i} of the ledger`)},`);
    const source = `def ledger_rows():\n    return [\n${rows.join('\n')}\n    ]\n`;
    const padded = `${source}${'#'.repeat(4_700_000 - source.length)}\n`;
    const dir = repo({ 'ledger.py': padded });
    const walked: WalkedFile = {
      relative: 'ledger.py',
      absolute: path.join(dir, 'ledger.py'),
      size: padded.length,
    };
    expect(walked.size).toBeGreaterThan(BATCH_BYTES);
    const direct = await upload(rt.url, { tenant_id: 'acme' }, [{ name: 'ledger.py', content: padded }]);
    expect(direct.status).toBe(413);
    const done = await uploadBatch(new RuntimeClient({ baseUrl: rt.url }), 'acme', [walked]);
    expect(done.errors).toEqual([]);
    expect(done.outcomes).toEqual([
      expect.objectContaining({ source_doc_id: 'ledger.py', status: 'indexed' }),
    ]);
    const found = await call(rt.url, 'POST', '/search/', {
      query: 'ledger rows',
      tenant_id: 'acme',
      profile: 'code_lateon_mv',
    });
    expect(found.body.results.map((r: { source_doc_id: string }) => r.source_doc_id)).toContain('ledger.py');
  }, 180_000);

  it('counts each graph node and edge once, however many upsert requests carry it', async () => {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'counts' })).status).toBe(201);
    // 1,200 functions, each calling the one before: more nodes and edges than one upsert request carries.
    const functions = Array.from(
      { length: 1200 },
      (_, i) => `def step_${i}():\n    return ${i === 0 ? '0' : `step_${i - 1}()`}\n`,
    );
    const dir = repo({ 'chain.py': functions.join('\n') });
    const answer = await tessera('index', dir, '--tenant', 'counts');
    expect(answer.code).toBe(0);
    const stats = (await call(rt.url, 'GET', '/graph/stats?tenant_id=counts')).body;
    expect(stats.edge_count).toBeGreaterThan(2000);
    expect(answer.stdout).toContain(`  Graph: ${stats.node_count} nodes, ${stats.edge_count} edges`);
  });

  it('says when a tree has no code files, and refuses other types', async () => {
    const dir = repo({ 'notes.md': 'nothing to index' });
    const empty = await tessera('index', dir);
    expect(empty.stdout.trim()).toBe(`No code files found in ${dir}`);
    const docs = await tessera('index', dir, '--type', 'docs');
    expect(docs.code).toBe(1);
    expect(docs.stderr.trim()).toBe("--type docs is not yet implemented. Only 'code' is supported.");
    const video = await tessera('index', dir, '--type', 'video');
    expect(video.stderr.trim()).toBe("--type video is not yet implemented. Only 'code' is supported.");
    const unknown = await tessera('index', dir, '--type', 'bogus');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe("Unknown --type 'bogus': expected code, docs or video.");
    const missing = await tessera('index', path.join(dir, 'nope'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Cannot index .*nope/);
  });

  it('fails before any upload for an unregistered tenant, naming it', async () => {
    const dir = repo({ 'a.ts': 'export const a = 1;' });
    const answer = await tessera('index', dir, '--tenant', 'ghost');
    expect(answer.code).toBe(1);
    expect(answer.stderr.trim()).toBe("Tenant 'ghost:ghost' not registered. (HTTP 404)");
  });
});
