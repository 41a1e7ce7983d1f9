import { describe, expect, it } from 'vitest';
import {
  applyPlan,
  EdgeInput,
  mergeNode,
  newNode,
  nodesToEmbed,
  planUpsert,
  sameEdge,
  storedEdge,
  TenantGraph,
  UpsertRequest,
  writeCounts,
} from '../src/index';

const mention = (segment: string, source = 'a.md') => ({
  source_doc_id: source,
  segment_id: segment,
  ts_start: 0,
  ts_end: 0,
  modality: 'text',
  evidence_span: 'x',
});

const edge = (source: string, relation: string, target: string, extra: Record<string, unknown> = {}) =>
  EdgeInput.parse({
    source,
    target,
    relation,
    evidence_span: `${source} ${relation} ${target}`,
    segment_id: 'seg',
    ts_start: 0,
    ts_end: 0,
    modality: 'text',
    ...extra,
  });

const write = (body: Record<string, unknown>) => UpsertRequest.parse({ tenant_id: 'x', ...body });

describe('mergeNode', () => {
  it('keeps the longer description and takes a kind or label given', () => {
    const node = { ...newNode('ada', 'Ada'), description: 'Mathematician' };
    expect(mergeNode(node, { description: 'short', mentions: [] })).toBeUndefined();
    expect(mergeNode(node, { description: 'Mathematician and writer', mentions: [] })?.description).toBe(
      'Mathematician and writer',
    );
    expect(mergeNode(node, { kind: 'entity', label: 'Person', mentions: [] })).toMatchObject({
      kind: 'entity',
      label: 'Person',
      description: 'Mathematician',
    });
    expect(mergeNode(node, { kind: 'concept', label: 'Concept', mentions: [] })).toBeUndefined();
  });

  it('unions mentions by source, segment, time span and modality, and leaves the node it was given alone', () => {
    const node = mergeNode(newNode('ada', 'Ada'), { mentions: [mention('s1')] })!;
    const merged = mergeNode(node, {
      mentions: [
        mention('s1'),
        { ...mention('s1'), evidence_span: 'other words' },
        mention('s2'),
        mention('s1', 'b.md'),
      ],
    })!;
    expect(merged.mentions.map((m) => `${m.source_doc_id}/${m.segment_id}`)).toEqual([
      'a.md/s1',
      'a.md/s2',
      'b.md/s1',
    ]);
    expect(node.mentions).toHaveLength(1);
    expect(mergeNode(merged, { mentions: [mention('s2')] })).toBeUndefined();
  });
});

describe('edges', () => {
  it('are identified by endpoints, relation, segment and time span; stored again only when what they say changed', () => {
    const a = storedEdge(edge('Marie Curie', 'discovered', 'Radium'), 'doc.md');
    expect(a).toMatchObject({
      source_node_id: 'marie_curie',
      target_node_id: 'radium',
      source_doc_id: 'doc.md',
    });
    const again = storedEdge(
      edge('marie curie', 'discovered', 'RADIUM', { evidence_span: 'new words' }),
      'doc.md',
    );
    expect(again.edge_id).toBe(a.edge_id);
    expect(sameEdge(a, again)).toBe(false);
    expect(sameEdge(a, storedEdge(edge('Marie Curie', 'discovered', 'Radium'), 'doc.md'))).toBe(true);
    expect(storedEdge(edge('a', 'r', 'b', { segment_id: 'other' }), 'doc.md').edge_id).not.toBe(
      storedEdge(edge('a', 'r', 'b'), 'doc.md').edge_id,
    );
  });
});

describe('planUpsert', () => {
  it('creates missing endpoints, counts each write on its own and changes nothing it was given', () => {
    const graph = new TenantGraph(0);
    const writes = [
      write({
        nodes: [{ name: 'Ada', description: 'Mathematician' }],
        edges: [edge('Ada', 'wrote', 'Notes')],
      }),
      write({ edges: [edge('Ada', 'wrote', 'Notes'), edge('Babbage', 'knew', 'Ada')] }),
    ];
    const plan = planUpsert(graph, writes);
    expect([...plan.nodes.keys()].sort()).toEqual(['ada', 'babbage', 'notes']);
    expect(plan.nodes.get('notes')).toMatchObject({
      name: 'Notes',
      description: '',
      kind: 'concept',
      label: 'Concept',
    });
    expect(plan.edges.size).toBe(2);
    expect(plan.counts).toEqual([
      { nodes_upserted: 2, edges_upserted: 1 },
      { nodes_upserted: 3, edges_upserted: 2 },
    ]);
    expect(writeCounts(writes[1]!)).toEqual(plan.counts[1]);
    expect(graph.nodes.size).toBe(0);
  });

  it('counts degree as the distinct edges touching a node, a self-loop once', () => {
    const graph = new TenantGraph(0);
    applyPlan(
      graph,
      planUpsert(graph, [
        write({
          edges: [
            edge('Marie Curie', 'discovered', 'Radium'),
            edge('Marie Curie', 'discovered', 'Radium'),
            edge('Marie Curie', 'won', 'Nobel Prize'),
            edge('Marie Curie', 'same_as', 'Marie Curie'),
          ],
        }),
      ]),
    );
    expect(graph.degree('marie_curie')).toBe(3);
    expect(graph.degree('radium')).toBe(1);
    // Upserting the same edges again plans nothing.
    const again = planUpsert(graph, [write({ edges: [edge('Marie Curie', 'won', 'Nobel Prize')] })]);
    expect([again.nodes.size, again.edges.size]).toEqual([0, 0]);
  });

  it('asks vectors only for nodes whose name or description changed', () => {
    const graph = new TenantGraph(0);
    applyPlan(
      graph,
      planUpsert(graph, [
        write({ nodes: [{ name: 'Ada', description: 'Mathematician' }, { name: 'Notes' }] }),
      ]),
    );
    const plan = planUpsert(graph, [
      write({
        nodes: [
          { name: 'Ada', mentions: [mention('s9')] },
          { name: 'Notes', description: 'Her notes' },
          { name: 'New' },
        ],
      }),
    ]);
    expect(
      nodesToEmbed(graph, plan)
        .map((node) => node.node_id)
        .sort(),
    ).toEqual(['new', 'notes']);
    expect(plan.nodes.has('ada')).toBe(true);
  });
});
