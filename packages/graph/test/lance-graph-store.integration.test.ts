/** The LanceDB graph store passes the graph store contract on a table in a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HashedTokenEncoder } from '@tessera/encoders';
import { LanceDatabase, LanceSearchBackend, lanceConnection } from '@tessera/search';
import { graphStoreContract } from '@tessera/testing/contracts';
import { schemaCatalog } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import { LanceGraphStore, type TenantGraph, UpsertRequest } from '../src/index';

const dir = mkdtempSync(path.join(tmpdir(), 'graph-'));
const template = schemaCatalog.get('knowledge_graph')!;
const encoder = new HashedTokenEncoder();

graphStoreContract('LanceGraphStore', () => ({
  store: new LanceGraphStore(lanceConnection(dir), template, encoder),
  // Its own connection, as another process has.
  other: () => new LanceGraphStore(new LanceDatabase(dir), template, encoder),
  deploy: (schema) => new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template),
  drop: (schema) => new LanceSearchBackend(lanceConnection(dir)).dropSchema(schema),
}));

describe('a graph kept in memory while another process writes', () => {
  const write = (nodes: string[], edges: [string, string][] = []) => [
    UpsertRequest.parse({
      tenant_id: 'catchup',
      nodes: nodes.map((name) => ({ name, description: `${name} of the catch-up test`, kind: 'entity' })),
      edges: edges.map(([source, target]) => ({
        source,
        target,
        relation: 'calls',
        evidence_span: `${source}()`,
        segment_id: `function:${source}`,
        ts_start: 0,
        ts_end: 0,
        modality: 'code',
      })),
    }),
  ];
  const contents = (graph: TenantGraph) => ({
    nodes: [...graph.nodes.values()].map((node) => [node.node_id, node.description]).sort(),
    edges: [...graph.edges.keys()].sort(),
  });

  it('reads only the rows written since, and the whole table when rows went', async () => {
    const schema = `knowledge_graph_catchup_${Date.now()}`;
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const mine = new LanceGraphStore(new LanceDatabase(dir), template, encoder);
    const theirs = new LanceGraphStore(new LanceDatabase(dir), template, encoder);
    const names = Array.from({ length: 40 }, (_, i) => `function_${i}`);
    await theirs.upsert(
      schema,
      write(
        names,
        names.slice(1).map((name, i) => [names[i]!, name]),
      ),
    );
    expect((await mine.graph(schema)).edges.size).toBe(39);

    // Another process adds nodes and edges and changes a node.
    await theirs.upsert(schema, write(['function_40', 'function_41'], [['function_40', 'function_0']]));
    await theirs.upsert(schema, [
      UpsertRequest.parse({
        tenant_id: 'catchup',
        nodes: [{ name: 'function_3', description: 'changed: a longer description is kept over the first' }],
      }),
    ]);
    const caughtUp = await mine.graph(schema);
    expect(mine.catchUps).toMatchObject({ read: 1, whole: 0 });
    expect(mine.catchUps.rows).toBeLessThan(10);
    const fresh = await new LanceGraphStore(new LanceDatabase(dir), template, encoder).graph(schema);
    expect(contents(caughtUp)).toEqual(contents(fresh));
    const named = (name: string) => [...caughtUp.nodes.values()].find((node) => node.name === name)!;
    expect(named('function_3').description).toMatch(/^changed/);
    expect(caughtUp.out(named('function_40').node_id)).toHaveLength(1);

    // Rows removed behind its back: the graph is read whole.
    const table = (await lanceConnection(dir).openTable(schema))!;
    await table.delete(`document_id = '${[...fresh.edges.keys()][0]}'`);
    const reread = await mine.graph(schema);
    expect(mine.catchUps.whole).toBe(1);
    expect(reread.edges.size).toBe(fresh.edges.size - 1);
  });
});
