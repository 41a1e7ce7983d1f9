/** The graph domain over fakes: tenant guard, upserts with their merge rules, and the reads. */
import { HttpError } from '@tessera/core';
import { createTenant } from '@tessera/tenancy';
import { fakeDomains, InMemoryGraphStore } from '@tessera/testing/fakes';
import { beforeAll, describe, expect, it } from 'vitest';
import { graphNeighbors, graphPath, graphSearch, graphStats, UpsertRequest, upsertGraph } from '../src/index';

const domains = fakeDomains();
const deps = domains.graph;
/** Another store over the same tables, as another process has. */
const newStore = () => new InMemoryGraphStore(domains.search, deps.encoder);

beforeAll(async () => {
  for (const tenant of ['acme', 'other', 'paths'])
    await createTenant(deps.tenancy, { tenant_id: tenant, created_by: 'test' });
});

const edge = (source: string, relation: string, target: string, extra: Record<string, unknown> = {}) => ({
  source,
  target,
  relation,
  evidence_span: `${source} ${relation} ${target}`,
  segment_id: 'seg',
  ts_start: 0,
  ts_end: 0,
  modality: 'code',
  ...extra,
});

const request = (body: Record<string, unknown>) => UpsertRequest.parse({ tenant_id: 'acme', ...body });

describe('graph upserts', () => {
  it('stores nodes and edges, creates missing endpoints, and answers the same counts when repeated', async () => {
    const body = request({
      source_doc_id: 'server.ts',
      nodes: [
        { name: 'Server', description: 'HTTP server of the runtime', kind: 'entity', label: 'Class' },
        {
          name: 'handleRequest',
          kind: 'entity',
          mentions: [{ source_doc_id: 'server.ts', segment_id: 'function:handleRequest' }],
        },
      ],
      edges: [edge('Server', 'defines', 'handleRequest'), edge('handleRequest', 'calls', 'parseBody')],
    });
    const first = await upsertGraph(deps, body);
    expect(first).toEqual({ status: 'upserted', nodes_upserted: 3, edges_upserted: 2, failed_ids: [] });
    const statsBefore = await graphStats(deps, 'acme');
    expect(await upsertGraph(deps, body)).toEqual(first);
    expect(await graphStats(deps, 'acme')).toEqual(statsBefore);
    expect(statsBefore).toMatchObject({ tenant_id: 'acme:acme', node_count: 3, edge_count: 2 });
    const created = (await graphNeighbors(deps, 'acme', 'parseBody', 1)).in_edges[0]!;
    expect(created).toMatchObject({
      source_node_id: 'handlerequest',
      target_node_id: 'parsebody',
      relation: 'calls',
      provenance: 'EXTRACTED',
      confidence: 1,
      source_doc_id: 'server.ts',
    });
    expect(created.edge_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('merges mentions, keeps the longer description and counts degree exactly', async () => {
    const mention = {
      source_doc_id: 'a.md',
      segment_id: 's1',
      ts_start: 1,
      ts_end: 2,
      modality: 'text',
      evidence_span: 'x',
    };
    await upsertGraph(
      deps,
      request({ nodes: [{ name: 'Marie Curie', description: 'Physicist', mentions: [mention] }] }),
    );
    await upsertGraph(
      deps,
      request({
        nodes: [
          {
            name: 'marie curie',
            description: 'Physicist and chemist',
            mentions: [mention, { ...mention, segment_id: 's2' }],
          },
          { name: 'MARIE-CURIE', description: 'short' },
        ],
        edges: [
          edge('Marie Curie', 'discovered', 'Radium'),
          edge('Marie Curie', 'discovered', 'Radium'),
          edge('Marie Curie', 'won', 'Nobel Prize'),
          edge('Marie Curie', 'same_as', 'Marie Curie'),
        ],
      }),
    );
    const found = await graphSearch(deps, 'acme', 'Marie Curie physicist', 3);
    expect(found.nodes[0]).toMatchObject({
      node_id: 'marie_curie',
      description: 'Physicist and chemist',
      degree: 3,
    });
    const store = newStore();
    const graph = await store.graph('knowledge_graph_acme_acme');
    expect(graph.nodes.get('marie_curie')!.mentions.map((m) => m.segment_id)).toEqual(['s1', 's2']);
    expect(graph.degree('marie_curie')).toBe(3);
  });

  it('answers 404 for an unregistered tenant before any work', async () => {
    await expect(upsertGraph(deps, request({ tenant_id: 'ghost', nodes: [{ name: 'x' }] }))).rejects.toThrow(
      "Tenant 'ghost:ghost' not registered.",
    );
    expect(await deps.tenancy.backend.listSchemas()).not.toContain('knowledge_graph_ghost_ghost');
  });

  it('keeps tenants apart', async () => {
    await upsertGraph(deps, request({ tenant_id: 'other', nodes: [{ name: 'Server' }] }));
    expect((await graphStats(deps, 'other')).node_count).toBe(1);
    expect((await graphStats(deps, 'acme')).node_count).toBeGreaterThan(1);
  });

  it('sees writes of another process (another store on the same tables)', async () => {
    const elsewhere = newStore();
    await elsewhere.upsert('knowledge_graph_acme_acme', [
      request({ nodes: [{ name: 'Written Elsewhere' }] }),
    ]);
    expect((await graphSearch(deps, 'acme', 'written elsewhere', 1)).nodes[0]?.node_id).toBe(
      'written_elsewhere',
    );
  });
});

describe('graph reads', () => {
  beforeAll(async () => {
    // a → b → c → d, a → x → d, d → e; the shortest a→d is a,x,d.
    await upsertGraph(
      deps,
      UpsertRequest.parse({
        tenant_id: 'paths',
        edges: [
          edge('a', 'r', 'b'),
          edge('b', 'r', 'c'),
          edge('c', 'r', 'd'),
          edge('a', 'r', 'x'),
          edge('x', 'r', 'd'),
          edge('d', 'r', 'e'),
        ],
      }),
    );
  });

  it('finds the shortest path over outgoing edges within the depth', async () => {
    expect(await graphPath(deps, 'paths', 'a', 'd', 4)).toEqual({
      source: 'a',
      target: 'd',
      path: ['a', 'x', 'd'],
      length: 2,
    });
    expect(await graphPath(deps, 'paths', 'A', 'E', 4)).toMatchObject({
      path: ['a', 'x', 'd', 'e'],
      length: 3,
    });
    expect(await graphPath(deps, 'paths', 'a', 'e', 2)).toEqual({
      source: 'a',
      target: 'e',
      path: null,
      length: -1,
    });
    expect(await graphPath(deps, 'paths', 'e', 'a', 6)).toMatchObject({ path: null, length: -1 });
    expect(await graphPath(deps, 'paths', 'c', 'c', 4)).toEqual({
      source: 'c',
      target: 'c',
      path: ['c'],
      length: 0,
    });
  });

  it('answers neighbors by direction, with hops beyond depth 1', async () => {
    const one = await graphNeighbors(deps, 'paths', 'd', 1);
    expect(one.out_edges.map((e) => e.target_node_id)).toEqual(['e']);
    expect(one.in_edges.map((e) => e.source_node_id).sort()).toEqual(['c', 'x']);
    expect(one.out_edges[0]).not.toHaveProperty('hop');
    const two = await graphNeighbors(deps, 'paths', 'd', 2);
    expect(two.in_edges.map((e) => [e.source_node_id, e.hop]).sort()).toEqual([
      ['a', 2],
      ['b', 2],
      ['c', 1],
      ['x', 1],
    ]);
  });

  it('answers 404 naming an unknown node', async () => {
    for (const call of [
      graphNeighbors(deps, 'paths', 'nowhere', 1),
      graphPath(deps, 'paths', 'a', 'nowhere', 4),
    ]) {
      await expect(call).rejects.toSatisfy(
        (error: unknown) =>
          error instanceof HttpError &&
          error.status === 404 &&
          /Node 'nowhere' not found/.test(error.message),
      );
    }
  });

  it('reports counts and the top nodes by degree', async () => {
    const result = await graphStats(deps, 'paths');
    expect(result).toMatchObject({ tenant_id: 'paths:paths', node_count: 6, edge_count: 6 });
    expect(result.top_nodes[0]).toEqual({ node_id: 'd', name: 'd', degree: 3 });
    expect(result.top_nodes.map((n) => n.degree)).toEqual([3, 2, 2, 2, 2, 1]);
  });
});
