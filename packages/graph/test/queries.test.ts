import { describe, expect, it } from 'vitest';
import { shortestPath, TenantGraph } from '../src/index';

describe('shortestPath', () => {
  it('agrees with a plain breadth-first search on a random graph', () => {
    const graph = new TenantGraph(0);
    let seed = 3;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const n = 300;
    for (let i = 0; i < n; i++) {
      graph.setNode({
        node_id: `n${i}`,
        name: `n${i}`,
        description: '',
        kind: 'concept',
        label: 'Concept',
        mentions: [],
        mentionKeys: new Set(),
        codes: new Uint32Array(0),
        tokens: 0,
      });
    }
    for (let e = 0; e < 700; e++) {
      const a = Math.floor(random() * n);
      const b = Math.floor(random() * n);
      graph.addEdge({
        edge_id: `e${e}`,
        source_node_id: `n${a}`,
        target_node_id: `n${b}`,
        relation: 'r',
        evidence_span: '',
        segment_id: '',
        ts_start: 0,
        ts_end: 0,
        modality: 'code',
        provenance: 'EXTRACTED',
        source_doc_id: '',
        confidence: 1,
      });
    }
    const plain = (s: string, t: string, max: number) => {
      const dist = new Map([[s, 0]]);
      let frontier = [s];
      for (let d = 1; d <= max; d++) {
        const next: string[] = [];
        for (const u of frontier)
          for (const edge of graph.out(u))
            if (!dist.has(edge.target_node_id)) {
              dist.set(edge.target_node_id, d);
              next.push(edge.target_node_id);
            }
        frontier = next;
      }
      return dist.has(t) ? dist.get(t)! : -1;
    };
    for (let k = 0; k < 400; k++) {
      const s = `n${Math.floor(random() * n)}`;
      const t = `n${Math.floor(random() * n)}`;
      const max = 1 + Math.floor(random() * 6);
      const found = shortestPath(graph, 'x', s, t, max);
      expect(found.length, `${s}→${t} within ${max}`).toBe(plain(s, t, max));
      if (found.path) {
        for (let i = 0; i + 1 < found.path.length; i++) {
          expect(graph.out(found.path[i]!).some((edge) => edge.target_node_id === found.path![i + 1])).toBe(
            true,
          );
        }
      }
    }
  });
});
