import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { extractCode, isCodeFile } from '@tessera/extractors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
let rt: RuntimeProcess;
let files = 0;

function codeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(full).isDirectory()) return codeFiles(full);
    return isCodeFile(full) ? [full] : [];
  });
}

async function tessera(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(root, 'packages/cli/bin/tessera.js'), ...args, '--url', rt.url],
      {
        env: { ...process.env, TESSERA_TENANT_ID: 'acme' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  // This repository's own packages, extracted with the code extractor and upserted file by file.
  for (const file of codeFiles(path.join(root, 'packages'))) {
    const relative = path.relative(root, file);
    const { nodes, edges } = await extractCode(relative, readFileSync(file, 'utf8'));
    const answer = await call(rt.url, 'POST', '/graph/upsert', {
      tenant_id: 'acme',
      source_doc_id: relative,
      nodes,
      edges,
    });
    expect(answer.status, relative).toBe(200);
    files++;
  }
}, 300_000);

afterAll(async () => {
  await rt?.stop();
});

describe('tessera graph over an extracted repository (integration)', () => {
  it('prints the stats of the graph', async () => {
    const { code, stdout } = await tessera('graph', 'stats');
    expect(code).toBe(0);
    expect(files).toBeGreaterThan(50);
    expect(stdout).toMatch(
      /^Knowledge Graph \(tenant: acme:acme\)\n {2}Nodes: \d+\n {2}Edges: \d+\n\nTop nodes \(by degree\):/,
    );
    expect(Number(/Nodes: (\d+)/.exec(stdout)![1])).toBeGreaterThan(500);
  });

  it('finds a function by its words', async () => {
    const { code, stdout } = await tessera('graph', 'search', 'parse tenant id', '--top-k', '5');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Found \d+ nodes for 'parse tenant id':/);
    expect(stdout).toMatch(/ {2}parseTenantId \(entity\)/);
  });

  it('lists who calls a function', async () => {
    const { code, stdout } = await tessera('graph', 'neighbors', 'parseTenantId');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Neighbors of parseTenantId\n {2}Outgoing:/);
    expect(stdout).toMatch(/← resolvetenantid \(calls, EXTRACTED\)/);
  });

  it('finds the call path from a route domain function to the identifier parser', async () => {
    const { code, stdout } = await tessera('graph', 'path', 'createTenant', 'parseTenantId');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^Path: createtenant → parsetenantid \(length 2\)\n {2}createtenant → resolvetenantid → parsetenantid/,
    );
  });

  it('exits 1 with one line for an unknown node and an unregistered tenant', async () => {
    const unknown = await tessera('graph', 'neighbors', 'noSuchFunction');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/Node 'noSuchFunction' not found/);
    const ghost = await tessera('graph', 'stats', '--tenant', 'ghost');
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toMatch(/Tenant 'ghost:ghost' not registered/);
  });
});
