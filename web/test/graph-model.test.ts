import type { Graph as Api } from '@tessera/api';
import { describe, expect, it } from 'vitest';
import {
  addNeighborPage,
  addNode,
  addPath,
  createGraph,
  edgesOf,
  MAX_NODES,
  pathEdges,
} from '../src/graph/model';

const edge = (source: string, target: string, relation = 'rel', confidence = 1): Api.GraphEdge => ({
  edge_id: `${source}-${relation}-${target}`,
  source_node_id: source,
  target_node_id: target,
  relation,
  evidence_span: '',
  segment_id: '',
  ts_start: 0,
  ts_end: 0,
  modality: 'text',
  provenance: 'EXTRACTED',
  source_doc_id: 'd',
  confidence,
});

const hub = (count: number): Api.Neighbors => ({
  node_id: 'hub',
  name: 'Hub',
  out_edges: Array.from({ length: count }, (_, i) => edge('hub', `n${i}`)),
  in_edges: [edge('n0', 'hub', 'back')],
});

describe('explorer graph', () => {
  it('adds a hub neighbours a page at a time', () => {
    const graph = createGraph();
    addNode(graph, 'hub', { name: 'Hub' });
    const all = edgesOf(hub(60));
    expect(all).toHaveLength(61);
    let step = addNeighborPage(graph, 'hub', { edges: all, taken: 0 }, 25);
    expect(graph.order).toBe(26);
    step = addNeighborPage(graph, 'hub', step.pending, 25);
    expect(graph.order).toBe(51);
    step = addNeighborPage(graph, 'hub', step.pending, 25);
    expect(graph.order).toBe(61);
    expect(step.pending.taken).toBe(61);
    // Both edges between hub and n0 are shown.
    expect(graph.outEdges('hub', 'n0')).toHaveLength(1);
    expect(graph.outEdges('n0', 'hub')).toHaveLength(1);
  });

  it('never holds more than MAX_NODES nodes, and says so', () => {
    const graph = createGraph();
    addNode(graph, 'hub');
    const step = addNeighborPage(
      graph,
      'hub',
      { edges: edgesOf(hub(MAX_NODES + 100)), taken: 0 },
      MAX_NODES + 100,
    );
    expect(graph.order).toBe(MAX_NODES);
    expect(step.full).toBe(true);
    expect(addNode(graph, 'one_more')).toBe(false);
    expect(addNode(graph, 'hub', { name: 'Hub' })).toBe(true);
  });

  it('orders edges strongest first', () => {
    const answer: Api.Neighbors = {
      node_id: 'a',
      name: 'A',
      out_edges: [edge('a', 'b', 'x', 0.2), edge('a', 'c', 'y', 0.9)],
      in_edges: [],
    };
    expect(edgesOf(answer).map((e) => e.target_node_id)).toEqual(['c', 'b']);
  });

  it('shows a path, joining steps that have no loaded edge, and replaces them once the real edge arrives', () => {
    const graph = createGraph();
    expect(addPath(graph, ['a', 'b', 'c'])).toBe(true);
    expect(graph.order).toBe(3);
    expect(pathEdges(graph, ['a', 'b', 'c']).size).toBe(2);
    addNeighborPage(graph, 'a', { edges: [edge('a', 'b', 'calls')], taken: 0 });
    const ab = graph.outEdges('a', 'b');
    expect(ab).toHaveLength(1);
    expect(graph.getEdgeAttribute(ab[0]!, 'relation')).toBe('calls');
  });
});
