import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CliError,
  parseCliEnv,
  runGraphNeighbors,
  runGraphPath,
  runGraphSearch,
  runGraphStats,
} from '../src/index';
import { captureOutput, type FakeRuntime, failure, startFakeRuntime } from './support';

/** Settings as if no TESSERA_* variable were set, whatever the shell running the tests holds. */
const noEnv = parseCliEnv({});

let runtime: FakeRuntime;
beforeEach(async () => {
  runtime = await startFakeRuntime();
});
afterEach(async () => {
  await runtime.close();
});

describe('runGraphStats (integration: fake runtime)', () => {
  it('prints the counts and the top nodes in a padded table', async () => {
    const { output, stdout, stderr } = captureOutput();
    const code = await runGraphStats({ url: runtime.url, tenant: 'acme' }, output, noEnv);
    expect(code).toBe(0);
    expect(stdout).toEqual([
      'Knowledge Graph (tenant: acme:acme)',
      '  Nodes: 6',
      '  Edges: 4',
      '',
      'Top nodes (by degree):',
      '  Node           Degree',
      '  load_settings  2',
      '  parse_config   2',
      '  settings       2',
      '  Config         1',
      '  safe_load      1',
      '  Orphan Node    0',
    ]);
    expect(stderr).toEqual([]);
  });

  it('sends the tenant as given, bare or canonical', async () => {
    await runGraphStats({ url: runtime.url, tenant: 'acme' }, captureOutput().output, noEnv);
    await runGraphStats({ url: runtime.url, tenant: 'acme:acme' }, captureOutput().output, noEnv);
    expect(runtime.requests).toEqual([
      { method: 'GET', path: '/graph/stats', query: { tenant_id: 'acme' } },
      { method: 'GET', path: '/graph/stats', query: { tenant_id: 'acme:acme' } },
    ]);
  });

  it('prints none under the top nodes of an empty graph', async () => {
    const { output, stdout } = captureOutput();
    await runGraphStats({ url: runtime.url, tenant: 'acme:empty' }, output, noEnv);
    expect(stdout).toEqual([
      'Knowledge Graph (tenant: acme:empty)',
      '  Nodes: 0',
      '  Edges: 0',
      '',
      'Top nodes (by degree):',
      '  none',
    ]);
  });

  it('prints the JSON body with --json', async () => {
    const { output, stdout } = captureOutput();
    await runGraphStats({ url: runtime.url, tenant: 'acme', json: true }, output, noEnv);
    const body = JSON.parse(stdout.join('\n'));
    expect(body).toMatchObject({ tenant_id: 'acme:acme', node_count: 6, edge_count: 4 });
    expect(body.top_nodes[0]).toEqual({ node_id: 'load_settings', name: 'load_settings', degree: 2 });
    expect(body.top_nodes).toHaveLength(6);
  });

  it('takes the tenant and the URL from TESSERA_TENANT_ID and TESSERA_RUNTIME_URL without flags', async () => {
    const env = parseCliEnv({ TESSERA_TENANT_ID: 'acme', TESSERA_RUNTIME_URL: runtime.url });
    const { output, stdout } = captureOutput();
    await runGraphStats({}, output, env);
    expect(stdout[0]).toBe('Knowledge Graph (tenant: acme:acme)');
    expect(runtime.requests[0]?.query).toEqual({ tenant_id: 'acme' });
  });

  it('prefers --tenant and --url over the settings', async () => {
    const env = parseCliEnv({ TESSERA_TENANT_ID: 'other', TESSERA_RUNTIME_URL: 'http://127.0.0.1:9' });
    await runGraphStats({ url: runtime.url, tenant: 'acme:acme' }, captureOutput().output, env);
    expect(runtime.requests[0]?.query).toEqual({ tenant_id: 'acme:acme' });
  });

  it('fails without a tenant, says how to give one and sends nothing', async () => {
    const error = await failure(runGraphStats({ url: runtime.url }, captureOutput().output, noEnv));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe(
      'No tenant given: pass --tenant <id> or set TESSERA_TENANT_ID. ' +
        'Without a tenant yet, register one first with POST /admin/tenants.',
    );
    expect(runtime.requests).toEqual([]);
  });

  it("turns the 404 for an unregistered tenant into the runtime's reason", async () => {
    const error = await failure(
      runGraphStats({ url: runtime.url, tenant: 'nobody' }, captureOutput().output, noEnv),
    );
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe("Tenant 'nobody' not registered. (HTTP 404)");
  });
});

describe('runGraphSearch (integration: fake runtime)', () => {
  it('prints each node with its kind and description', async () => {
    const { output, stdout } = captureOutput();
    await runGraphSearch({ url: runtime.url, tenant: 'acme', query: 'settings' }, output, noEnv);
    expect(stdout).toEqual([
      "Found 2 nodes for 'settings':",
      '  settings (entity)',
      '    Module settings (python)',
      '  load_settings (entity)',
      '    Loads the settings file and applies defaults',
    ]);
    expect(runtime.requests).toEqual([
      { method: 'GET', path: '/graph/search', query: { tenant_id: 'acme', q: 'settings', top_k: '10' } },
    ]);
  });

  it('sends --top-k and skips the line of an empty description', async () => {
    const { output, stdout } = captureOutput();
    await runGraphSearch({ url: runtime.url, tenant: 'acme', query: 'safe_load', topK: '3' }, output, noEnv);
    expect(stdout).toEqual(["Found 1 nodes for 'safe_load':", '  safe_load (concept)']);
    expect(runtime.requests[0]?.query).toEqual({ tenant_id: 'acme', q: 'safe_load', top_k: '3' });
  });

  it('says so when nothing matches', async () => {
    const { output, stdout } = captureOutput();
    const code = await runGraphSearch({ url: runtime.url, tenant: 'acme', query: 'zebra' }, output, noEnv);
    expect(code).toBe(0);
    expect(stdout).toEqual(["No nodes found for 'zebra'"]);
  });

  it('prints the JSON body with --json', async () => {
    const { output, stdout } = captureOutput();
    await runGraphSearch({ url: runtime.url, tenant: 'acme', query: 'config', json: true }, output, noEnv);
    const body = JSON.parse(stdout.join('\n'));
    expect(body.count).toBe(2);
    expect(body.nodes[0]).toMatchObject({
      node_id: 'parse_config',
      kind: 'entity',
      label: 'Entity',
      degree: 2,
    });
  });

  it.each(['abc', '0', '101', '2.5', '-1', ''])('rejects --top-k %j before any request', async (topK) => {
    const error = await failure(
      runGraphSearch({ url: runtime.url, tenant: 'acme', query: 'x', topK }, captureOutput().output, noEnv),
    );
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe(`--top-k must be an integer from 1 to 100, got '${topK}'.`);
    expect(runtime.requests).toEqual([]);
  });

  it('rejects an empty query before any request', async () => {
    const error = await failure(
      runGraphSearch({ url: runtime.url, tenant: 'acme', query: '  ' }, captureOutput().output, noEnv),
    );
    expect(error.message).toBe('The search query must not be empty.');
    expect(runtime.requests).toEqual([]);
  });
});

describe('runGraphNeighbors (integration: fake runtime)', () => {
  it('prints the outgoing and incoming edges with relation and provenance', async () => {
    const { output, stdout } = captureOutput();
    await runGraphNeighbors({ url: runtime.url, tenant: 'acme', node: 'load_settings' }, output, noEnv);
    expect(stdout).toEqual([
      'Neighbors of load_settings',
      '  Outgoing:',
      '    → parse_config (calls, EXTRACTED)',
      '  Incoming:',
      '    ← settings (defines, EXTRACTED)',
    ]);
    expect(runtime.requests[0]).toEqual({
      method: 'GET',
      path: '/graph/neighbors',
      query: { tenant_id: 'acme', node: 'load_settings', depth: '1' },
    });
  });

  it('prints none for an empty side and sends a node name as given', async () => {
    const { output, stdout } = captureOutput();
    await runGraphNeighbors({ url: runtime.url, tenant: 'acme', node: 'Orphan Node' }, output, noEnv);
    expect(stdout).toEqual([
      'Neighbors of Orphan Node',
      '  Outgoing:',
      '    none',
      '  Incoming:',
      '    none',
    ]);
    expect(runtime.requests[0]?.query.node).toBe('Orphan Node');
  });

  it('sends --depth and names the far end of edges beyond the first hop', async () => {
    const { output, stdout } = captureOutput();
    await runGraphNeighbors(
      { url: runtime.url, tenant: 'acme', node: 'parse_config', depth: 2 },
      output,
      noEnv,
    );
    expect(stdout).toEqual([
      'Neighbors of parse_config',
      '  Outgoing:',
      '    → safe_load (calls, INFERRED)',
      '  Incoming:',
      '    ← load_settings (calls, EXTRACTED)',
      '    ← settings (defines, EXTRACTED) [hop 2, to load_settings]',
    ]);
    expect(runtime.requests[0]?.query.depth).toBe('2');
  });

  it('prints the JSON body with --json', async () => {
    const { output, stdout } = captureOutput();
    await runGraphNeighbors(
      { url: runtime.url, tenant: 'acme', node: 'settings', json: true },
      output,
      noEnv,
    );
    const body = JSON.parse(stdout.join('\n'));
    expect(body.out_edges).toHaveLength(2);
    expect(body.out_edges[0]).toMatchObject({
      source_node_id: 'settings',
      relation: 'defines',
      modality: 'code',
    });
    expect(body.in_edges).toEqual([]);
  });

  it("turns the 404 for an unknown node into the runtime's reason", async () => {
    const error = await failure(
      runGraphNeighbors({ url: runtime.url, tenant: 'acme', node: 'nope' }, captureOutput().output, noEnv),
    );
    expect(error.message).toBe("Node 'nope' not found (HTTP 404)");
  });

  it.each(['9', '0', 'two'])('rejects --depth %j before any request', async (depth) => {
    const error = await failure(
      runGraphNeighbors(
        { url: runtime.url, tenant: 'acme', node: 'settings', depth },
        captureOutput().output,
        noEnv,
      ),
    );
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe(`--depth must be an integer from 1 to 3, got '${depth}'.`);
    expect(runtime.requests).toEqual([]);
  });
});

describe('runGraphPath (integration: fake runtime)', () => {
  it('prints the shortest path along outgoing edges', async () => {
    const { output, stdout } = captureOutput();
    await runGraphPath(
      { url: runtime.url, tenant: 'acme', source: 'settings', target: 'safe_load' },
      output,
      noEnv,
    );
    expect(stdout).toEqual([
      'Path: settings → safe_load (length 3)',
      '  settings → load_settings → parse_config → safe_load',
    ]);
    expect(runtime.requests[0]).toEqual({
      method: 'GET',
      path: '/graph/path',
      query: { tenant_id: 'acme', source: 'settings', target: 'safe_load', max_depth: '4' },
    });
  });

  it('says so when no path exists within --max-depth', async () => {
    const { output, stdout } = captureOutput();
    const code = await runGraphPath(
      { url: runtime.url, tenant: 'acme', source: 'settings', target: 'safe_load', maxDepth: '2' },
      output,
      noEnv,
    );
    expect(code).toBe(0);
    expect(stdout).toEqual(["No path found between 'settings' and 'safe_load' within depth 2"]);
    expect(runtime.requests[0]?.query.max_depth).toBe('2');
  });

  it('follows edges in their direction only', async () => {
    const { output, stdout } = captureOutput();
    await runGraphPath(
      { url: runtime.url, tenant: 'acme', source: 'safe_load', target: 'settings' },
      output,
      noEnv,
    );
    expect(stdout).toEqual(["No path found between 'safe_load' and 'settings' within depth 4"]);
  });

  it('prints a path of length 0 from a node to itself', async () => {
    const { output, stdout } = captureOutput();
    await runGraphPath(
      { url: runtime.url, tenant: 'acme', source: 'settings', target: 'settings' },
      output,
      noEnv,
    );
    expect(stdout).toEqual(['Path: settings → settings (length 0)', '  settings']);
  });

  it('prints the JSON body with --json, also without a path', async () => {
    const { output, stdout } = captureOutput();
    await runGraphPath(
      { url: runtime.url, tenant: 'acme', source: 'safe_load', target: 'settings', json: true },
      output,
      noEnv,
    );
    expect(JSON.parse(stdout.join('\n'))).toEqual({
      source: 'safe_load',
      target: 'settings',
      path: null,
      length: -1,
    });
  });

  it.each(['7', '0', 'far'])('rejects --max-depth %j before any request', async (maxDepth) => {
    const error = await failure(
      runGraphPath(
        { url: runtime.url, tenant: 'acme', source: 'a', target: 'b', maxDepth },
        captureOutput().output,
        noEnv,
      ),
    );
    expect(error.message).toBe(`--max-depth must be an integer from 1 to 6, got '${maxDepth}'.`);
    expect(runtime.requests).toEqual([]);
  });
});
