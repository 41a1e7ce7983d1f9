import { describe, expect, it } from 'vitest';
import {
  compareOverTime,
  detect,
  MAX_TRAVERSE_EDGES,
  summarize,
  synthesize,
  TenantGraph,
  trace,
  traverse,
} from '../src/index';

function node(graph: TenantGraph, id: string) {
  graph.setNode({
    node_id: id,
    name: id,
    description: '',
    kind: 'concept',
    label: 'Concept',
    mentions: [],
    mentionKeys: new Set(),
    codes: new Uint32Array(0),
    tokens: 0,
  });
}

function edge(
  graph: TenantGraph,
  id: string,
  source: string,
  relation: string,
  target: string,
  more: { ts?: number; doc?: string; provenance?: string } = {},
) {
  for (const end of [source, target]) if (!graph.nodes.has(end)) node(graph, end);
  graph.addEdge({
    edge_id: id,
    source_node_id: source,
    target_node_id: target,
    relation,
    evidence_span: `${source} ${relation} ${target}`,
    segment_id: `seg_${id}`,
    ts_start: more.ts ?? 0,
    ts_end: more.ts ?? 0,
    modality: 'text',
    provenance: more.provenance ?? 'INFERRED',
    source_doc_id: more.doc ?? 'doc.md',
    confidence: 1,
  });
}

describe('the knowledge graph methods', () => {
  it('traverses both directions and stops at the edge bound, saying so', () => {
    const graph = new TenantGraph(0);
    for (let i = 0; i < MAX_TRAVERSE_EDGES + 10; i++)
      edge(graph, `e${i}`, i % 2 ? 'hub' : `n${i}`, 'r', i % 2 ? `n${i}` : 'hub');
    const found = traverse(graph, 'Hub', 1);
    expect(found.start_node_id).toBe('hub');
    expect(found.edges).toHaveLength(MAX_TRAVERSE_EDGES);
    expect(found.truncated).toBe(true);
    expect(new Set(found.edges.map((e) => e.edge_id)).size).toBe(MAX_TRAVERSE_EDGES);
    expect(traverse(graph, 'n1', 1)).toMatchObject({ truncated: false, edges: [{ edge_id: 'e1', hop: 1 }] });
  });

  it('orders a timeline by start, end, source document and edge id', () => {
    const graph = new TenantGraph(0);
    edge(graph, 'b', 's', 'won', 'x', { ts: 5, doc: 'b.md' });
    edge(graph, 'a', 's', 'won', 'y', { ts: 5, doc: 'a.md' });
    edge(graph, 'c', 's', 'won', 'z', { ts: 1, doc: 'z.md' });
    edge(graph, 'd', 'other', 'won', 's', { ts: 0 });
    expect(compareOverTime(graph, 's').map((e) => e.edge_id)).toEqual(['c', 'a', 'b']);
  });

  it('groups only inferred claims, and answers a new grouping once the graph changes', () => {
    const graph = new TenantGraph(0);
    edge(graph, 'a', 's', 'discovered', 'x', { doc: 'one.md' });
    edge(graph, 'b', 's', 'discovered', 'x', { doc: 'two.md' });
    edge(graph, 'c', 't', 'won', 'y');
    edge(graph, 'd', 'f', 'calls', 'g', { provenance: 'EXTRACTED' });
    expect(synthesize(graph).groups.map((g) => [g.subject, g.predicate, g.claims.length])).toEqual([
      ['s', 'discovered', 2],
      ['t', 'won', 1],
    ]);
    edge(graph, 'e', 'u', 'won', 'z', { doc: 'three.md' });
    expect(synthesize(graph, 10).total_groups).toBe(3);
    expect(synthesize(graph, 1).groups).toHaveLength(1);
  });

  it('detects conflicts of one predicate only when asked, and contradicts edges alone', () => {
    const graph = new TenantGraph(0);
    edge(graph, 'a', 's', 'born_in', 'x');
    edge(graph, 'b', 's', 'born_in', 'y');
    edge(graph, 'c', 's', 'won', 'z');
    edge(graph, 'd', 's', 'contradicts', 'm');
    expect(detect(graph, 's').map((e) => e.predicate)).toEqual(['born_in', 'contradicts']);
    expect(detect(graph, 's', 'won')).toEqual([]);
    expect(detect(graph, 's', 'born_in')[0]!.objects).toEqual(['x', 'y']);
  });

  it('answers 404 naming the unknown subjects and claims', () => {
    const graph = new TenantGraph(0);
    edge(graph, 'a', 's', 'won', 'x');
    expect(() => summarize(graph, ['s', 'Ghost', 'Nobody'])).toThrow("Nodes 'Ghost', 'Nobody' not found");
    expect(() => detect(graph, '')).toThrow("Node '' not found");
    expect(() => trace(graph, 'b')).toThrow("Claim 'b' not found");
    expect(trace(graph, 'a').sources).toEqual([
      expect.objectContaining({ edge_id: 'a', segment_id: 'seg_a' }),
    ]);
  });
});
