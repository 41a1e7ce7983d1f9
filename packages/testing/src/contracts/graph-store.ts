/** The contract of `GraphStore`: merge rules, one write for a batch, and other processes' writes seen. */
import { type GraphStore, type GraphWrite, UpsertRequest } from '@tessera/graph';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export interface GraphStoreSubject {
  store: GraphStore;
  /** Another store over the same data, as another process has. */
  other(): GraphStore;
  /** Deploys a tenant graph schema. */
  deploy(schema: string): Promise<void>;
  /** Drops a tenant graph schema. */
  drop(schema: string): Promise<void>;
}

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

const write = (body: Record<string, unknown>): GraphWrite => UpsertRequest.parse({ tenant_id: 'x', ...body });

const mention = {
  source_doc_id: 'a.md',
  segment_id: 's1',
  ts_start: 1,
  ts_end: 2,
  modality: 'text',
  evidence_span: 'x',
};

export function graphStoreContract(label: string, subject: () => GraphStoreSubject): void {
  describe(`${label} (GraphStore contract)`, () => {
    async function fresh() {
      const made = subject();
      const schema = unique('knowledge_graph_contract');
      await made.deploy(schema);
      return { ...made, schema };
    }

    it('reads a schema dropped and deployed again as the new graph, in this process and another', async () => {
      const made = subject();
      const elsewhere = made.other();
      const schema = unique('knowledge_graph_again');
      for (let round = 0; round < 3; round++) {
        await made.deploy(schema);
        // One process writes, both read: the same steps each round, so each table has the versions of the
        // one before, which the other process read.
        const writer = round % 2 === 0 ? made.store : elsewhere;
        await writer.upsert(schema, [write({ nodes: [{ name: `round ${round}` }] })]);
        for (const store of [made.store, elsewhere]) {
          expect([...(await store.graph(schema)).nodes.keys()]).toEqual([`round_${round}`]);
        }
        await made.drop(schema);
        expect((await elsewhere.graph(schema)).nodes.size).toBe(0);
      }
    });

    it('answers an empty graph for a schema not deployed and refuses writes to it', async () => {
      const { store } = subject();
      const schema = unique('knowledge_graph_absent');
      expect((await store.graph(schema)).nodes.size).toBe(0);
      await expect(store.upsert(schema, [write({ nodes: [{ name: 'x' }] })])).rejects.toThrow(/not deployed/);
    });

    it('stores nodes and edges, creates missing endpoints, and answers the same counts when repeated', async () => {
      const { store, schema } = await fresh();
      const body = write({
        source_doc_id: 'server.ts',
        nodes: [
          { name: 'Server', description: 'HTTP server of the runtime', kind: 'entity', label: 'Class' },
          {
            name: 'handleRequest',
            kind: 'entity',
            mentions: [{ source_doc_id: 'server.ts', segment_id: 'f' }],
          },
        ],
        edges: [edge('Server', 'defines', 'handleRequest'), edge('handleRequest', 'calls', 'parseBody')],
      });
      const [first] = await store.upsert(schema, [body]);
      expect(first).toEqual({ nodes_upserted: 3, edges_upserted: 2 });
      const before = await store.graph(schema);
      const sizes = [before.nodes.size, before.edges.size];
      expect(await store.upsert(schema, [body])).toEqual([first]);
      const after = await store.graph(schema);
      expect([after.nodes.size, after.edges.size]).toEqual(sizes);
      expect(sizes).toEqual([3, 2]);
      const created = after.in('parsebody')[0]!;
      expect(created).toMatchObject({
        source_node_id: 'handlerequest',
        relation: 'calls',
        provenance: 'EXTRACTED',
        confidence: 1,
        source_doc_id: 'server.ts',
      });
      expect(after.nodes.get('parsebody')).toMatchObject({
        description: '',
        kind: 'concept',
        label: 'Concept',
      });
    });

    it('merges mentions, keeps the longer description and counts degree exactly, as another store reads it', async () => {
      const { store, other, schema } = await fresh();
      await store.upsert(schema, [
        write({ nodes: [{ name: 'Marie Curie', description: 'Physicist', mentions: [mention] }] }),
      ]);
      await store.upsert(schema, [
        write({
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
      ]);
      for (const graph of [await store.graph(schema), await other().graph(schema)]) {
        const node = graph.nodes.get('marie_curie')!;
        expect(node.description).toBe('Physicist and chemist');
        expect(node.name).toBe('Marie Curie');
        expect(node.mentions.map((m) => m.segment_id)).toEqual(['s1', 's2']);
        expect(node.tokens).toBeGreaterThan(0);
        expect(graph.degree('marie_curie')).toBe(3);
      }
    });

    it('stores a batch of writes as the same writes one by one would, with each write counts', async () => {
      const one = await fresh();
      const batch = await fresh();
      const writes = [
        write({
          source_doc_id: 'a.md',
          nodes: [{ name: 'Ada', mentions: [mention] }],
          edges: [edge('Ada', 'wrote', 'Notes')],
        }),
        write({
          source_doc_id: 'b.md',
          nodes: [
            { name: 'Ada', description: 'Mathematician', mentions: [{ ...mention, source_doc_id: 'b.md' }] },
          ],
          edges: [edge('Ada', 'wrote', 'Notes'), edge('Babbage', 'knew', 'Ada')],
        }),
        write({ source_doc_id: 'c.md', nodes: [] }),
      ];
      const sequential = [];
      for (const w of writes) sequential.push(...(await one.store.upsert(one.schema, [w])));
      const together = await batch.store.upsert(batch.schema, writes);
      expect(together).toEqual(sequential);
      expect(together).toEqual([
        { nodes_upserted: 2, edges_upserted: 1 },
        { nodes_upserted: 3, edges_upserted: 2 },
        { nodes_upserted: 0, edges_upserted: 0 },
      ]);
      const shape = async (store: GraphStore, schema: string) => {
        const graph = await store.graph(schema);
        return {
          nodes: [...graph.nodes.values()]
            .map((n) => [n.node_id, n.description, n.mentions.map((m) => m.source_doc_id)])
            .sort(),
          edges: [...graph.edges.keys()].sort(),
          degree: graph.degree('ada'),
        };
      };
      expect(await shape(batch.other(), batch.schema)).toEqual(await shape(one.store, one.schema));
      expect((await shape(batch.store, batch.schema)).degree).toBe(2);
    });

    it('sees the writes of another store on the same data', async () => {
      const { store, other, schema } = await fresh();
      await store.upsert(schema, [write({ nodes: [{ name: 'Here' }] })]);
      expect((await store.graph(schema)).nodes.has('here')).toBe(true);
      await other().upsert(schema, [write({ nodes: [{ name: 'Written Elsewhere' }] })]);
      const graph = await store.graph(schema);
      expect([...graph.nodes.keys()].sort()).toEqual(['here', 'written_elsewhere']);
      await store.upsert(schema, [write({ edges: [edge('Here', 'r', 'Written Elsewhere')] })]);
      expect((await other().graph(schema)).degree('written_elsewhere')).toBe(1);
    });
  });
}
