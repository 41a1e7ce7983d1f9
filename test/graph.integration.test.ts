import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
const edge = (source: string, relation: string, target: string) => ({
  source,
  target,
  relation,
  evidence_span: `${source}()`,
  segment_id: `function:${source}`,
  ts_start: 0,
  ts_end: 0,
  modality: 'code',
});

beforeAll(async () => {
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  const seeded = await call(rt.url, 'POST', '/graph/upsert', {
    tenant_id: 'acme',
    source_doc_id: 'server.ts',
    nodes: [
      { name: 'startRuntime', description: 'Starts the local runtime and its emulators', kind: 'entity' },
    ],
    edges: [edge('startRuntime', 'calls', 'startEmulators'), edge('startEmulators', 'calls', 'listen')],
  });
  expect(seeded).toMatchObject({
    status: 200,
    body: { status: 'upserted', nodes_upserted: 3, edges_upserted: 2 },
  });
});

afterAll(async () => {
  await rt?.stop();
});

const stats = async () => (await call(rt.url, 'GET', '/graph/stats?tenant_id=acme')).body;

describe('/graph endpoints (integration)', () => {
  it('answers stats, search, neighbors and path', async () => {
    expect(await stats()).toEqual({
      tenant_id: 'acme:acme',
      node_count: 3,
      edge_count: 2,
      top_nodes: [
        { node_id: 'startemulators', name: 'startEmulators', degree: 2 },
        { node_id: 'listen', name: 'listen', degree: 1 },
        { node_id: 'startruntime', name: 'startRuntime', degree: 1 },
      ],
    });
    const search = await call(rt.url, 'GET', '/graph/search?tenant_id=acme&q=local%20runtime&top_k=2');
    expect(search.body.nodes[0]).toMatchObject({
      node_id: 'startruntime',
      kind: 'entity',
      label: 'Concept',
      degree: 1,
    });
    expect(search.body.count).toBe(search.body.nodes.length);
    const near = await call(rt.url, 'GET', '/graph/neighbors?tenant_id=acme&node=startEmulators');
    expect(near.body.out_edges.map((e: { target_node_id: string }) => e.target_node_id)).toEqual(['listen']);
    expect(near.body.in_edges[0]).toMatchObject({
      source_node_id: 'startruntime',
      relation: 'calls',
      provenance: 'EXTRACTED',
    });
    expect(
      (await call(rt.url, 'GET', '/graph/path?tenant_id=acme&source=startRuntime&target=listen')).body,
    ).toEqual({
      source: 'startruntime',
      target: 'listen',
      path: ['startruntime', 'startemulators', 'listen'],
      length: 2,
    });
  });

  it('refuses bad upserts with 4xx and writes nothing', async () => {
    const before = await stats();
    const bad: [string, unknown, number][] = [
      ['missing tenant', { nodes: [{ name: 'x' }] }, 422],
      ['wrong type', { tenant_id: 'acme', nodes: [{ name: 5 }] }, 422],
      ['nodes not a list', { tenant_id: 'acme', nodes: 'x' }, 422],
      ['name with an empty id', { tenant_id: 'acme', nodes: [{ name: '!!!' }] }, 422],
      ['empty relation', { tenant_id: 'acme', edges: [{ ...edge('a', ' ', 'b') }] }, 422],
      ['negative timestamp', { tenant_id: 'acme', edges: [{ ...edge('a', 'r', 'b'), ts_start: -1 }] }, 422],
      [
        'confidence above 1',
        { tenant_id: 'acme', edges: [{ ...edge('a', 'r', 'b'), confidence: 1.5 }] },
        422,
      ],
      [
        'edge without evidence',
        { tenant_id: 'acme', edges: [{ source: 'a', target: 'b', relation: 'r' }] },
        422,
      ],
      [
        '10,001 nodes',
        { tenant_id: 'acme', nodes: Array.from({ length: 10_001 }, (_, i) => ({ name: `n${i}` })) },
        422,
      ],
      [
        'valid nodes beside one bad edge',
        { tenant_id: 'acme', nodes: [{ name: 'fresh' }], edges: [{ ...edge('a', 'r', 'b'), ts_end: 'x' }] },
        422,
      ],
    ];
    for (const [why, body, status] of bad) {
      expect((await call(rt.url, 'POST', '/graph/upsert', body)).status, why).toBe(status);
    }
    expect(
      (await call(rt.url, 'POST', '/graph/upsert', '{"tenant_id": "acme", "nodes": [NaN]}')).status,
    ).toBe(422);
    expect((await call(rt.url, 'POST', '/graph/upsert', 'not json')).status).toBe(422);
    expect(await stats()).toEqual(before);
  });

  it('answers 404 for an unregistered tenant and an unknown node, 422 for out-of-range depths', async () => {
    expect(await call(rt.url, 'GET', '/graph/stats?tenant_id=ghost')).toMatchObject({
      status: 404,
      body: { detail: "Tenant 'ghost:ghost' not registered." },
    });
    expect(
      (await call(rt.url, 'POST', '/graph/upsert', { tenant_id: 'ghost', nodes: [{ name: 'x' }] })).status,
    ).toBe(404);
    const unknown = await call(rt.url, 'GET', '/graph/neighbors?tenant_id=acme&node=nowhere');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/Node 'nowhere' not found/);
    expect(
      (await call(rt.url, 'GET', '/graph/path?tenant_id=acme&source=listen&target=nowhere')).status,
    ).toBe(404);
    for (const query of [
      'neighbors?tenant_id=acme&node=listen&depth=4',
      'neighbors?tenant_id=acme&node=listen&depth=0',
      'path?tenant_id=acme&source=a&target=b&max_depth=7',
      'search?tenant_id=acme&q=x&top_k=101',
      'search?tenant_id=acme',
    ]) {
      expect((await call(rt.url, 'GET', `/graph/${query}`)).status, query).toBe(422);
    }
    expect((await call(rt.url, 'GET', '/graph/stats?tenant_id=a:b:c')).status).toBe(400);
  });
});
