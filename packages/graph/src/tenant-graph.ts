/** One tenant's graph in memory: nodes, edges and adjacency, kept in step with its table. */
import type { GraphEdge, GraphNode } from './model';

export interface NodeState extends GraphNode {
  mentionKeys: Set<string>;
  /** Packed token codes of `name + description` (4 words a token). */
  codes: Uint32Array;
  tokens: number;
}

export class TenantGraph {
  readonly nodes = new Map<string, NodeState>();
  readonly edges = new Map<string, GraphEdge>();
  private readonly outgoing = new Map<string, Set<string>>();
  private readonly incoming = new Map<string, Set<string>>();

  constructor(public version: number) {}

  setNode(node: NodeState): void {
    this.nodes.set(node.node_id, node);
  }

  addEdge(edge: GraphEdge): void {
    const previous = this.edges.get(edge.edge_id);
    this.edges.set(edge.edge_id, edge);
    if (previous) return;
    link(this.outgoing, edge.source_node_id, edge.edge_id);
    link(this.incoming, edge.target_node_id, edge.edge_id);
  }

  out(nodeId: string): GraphEdge[] {
    return [...(this.outgoing.get(nodeId) ?? [])].map((id) => this.edges.get(id)!);
  }

  in(nodeId: string): GraphEdge[] {
    return [...(this.incoming.get(nodeId) ?? [])].map((id) => this.edges.get(id)!);
  }

  outIds(nodeId: string): ReadonlySet<string> | undefined {
    return this.outgoing.get(nodeId);
  }

  /** Distinct edges touching the node; a self-loop counts once. */
  degree(nodeId: string): number {
    const out = this.outgoing.get(nodeId);
    const inc = this.incoming.get(nodeId);
    if (!out) return inc?.size ?? 0;
    if (!inc) return out.size;
    let both = 0;
    for (const id of out) if (inc.has(id)) both++;
    return out.size + inc.size - both;
  }
}

function link(index: Map<string, Set<string>>, nodeId: string, edgeId: string): void {
  let set = index.get(nodeId);
  if (!set) {
    set = new Set();
    index.set(nodeId, set);
  }
  set.add(edgeId);
}
