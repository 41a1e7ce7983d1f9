/** One tenant's graph in memory: nodes, edges and adjacency, kept in step with its table. */
import type { GraphEdge, GraphNode } from './model';
import { NodeTextIndex } from './text-index';

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
  /** Distinct edges touching each node, kept as edges arrive (a self-loop counts once). */
  private readonly degrees = new Map<string, number>();

  readonly text = new NodeTextIndex();
  /** Counts changes, so answers computed from the whole graph can be kept until it changes. */
  generation = 0;
  private readonly memo = new Map<string, { generation: number; value: unknown }>();

  /** The highest row id of its table read into it: a later read takes only the rows after it. */
  rowWatermark: bigint | undefined;

  constructor(public version: number) {}

  /** Every node's token codes side by side, so a scan over all nodes reads one array. */
  private codeWords = new Uint32Array(4096);
  private codeEnd = 0;
  private readonly numbers = new Map<string, number>();
  private readonly numbered: string[] = [];
  private codeStart = new Int32Array(1024);
  private codeTokens = new Int32Array(1024);

  setNode(node: NodeState): void {
    this.generation++;
    const previous = this.nodes.get(node.node_id);
    this.nodes.set(node.node_id, node);
    if (!previous || previous.codes !== node.codes) this.storeCodes(node);
    if (!previous || previous.name !== node.name || previous.description !== node.description) {
      this.text.set(node.node_id, `${node.name} ${node.description}`);
    }
  }

  private storeCodes(node: NodeState): void {
    let number = this.numbers.get(node.node_id);
    if (number === undefined) {
      number = this.numbered.length;
      this.numbers.set(node.node_id, number);
      this.numbered.push(node.node_id);
      if (number >= this.codeStart.length) {
        this.codeStart = grow(this.codeStart, this.codeStart.length * 2);
        this.codeTokens = grow(this.codeTokens, this.codeTokens.length * 2);
      }
    }
    // Rewritten codes go to the end; the old ones stay as unreferenced space.
    const needed = this.codeEnd + node.codes.length;
    if (needed > this.codeWords.length)
      this.codeWords = grow(this.codeWords, Math.max(needed, this.codeWords.length * 2));
    this.codeWords.set(node.codes, this.codeEnd);
    this.codeStart[number] = this.codeEnd;
    this.codeTokens[number] = node.tokens;
    this.codeEnd = needed;
  }

  /** Calls `visit` with each node id and the score `score(words, start, tokens)` of its codes. */
  scanCodes(
    score: (words: Uint32Array, start: number, tokens: number) => number,
    visit: (nodeId: string, value: number) => void,
  ): void {
    const words = this.codeWords;
    for (let number = 0; number < this.numbered.length; number++) {
      visit(this.numbered[number]!, score(words, this.codeStart[number]!, this.codeTokens[number]!));
    }
  }

  /** `compute()` once per graph state. */
  memoize<T>(key: string, compute: () => T): T {
    const kept = this.memo.get(key);
    if (kept && kept.generation === this.generation) return kept.value as T;
    const value = compute();
    this.memo.set(key, { generation: this.generation, value });
    return value;
  }

  /** Node ids with their degree, for nodes touched by at least one edge. */
  degreeEntries(): IterableIterator<[string, number]> {
    return this.degrees.entries();
  }

  addEdge(edge: GraphEdge): void {
    this.generation++;
    const previous = this.edges.get(edge.edge_id);
    this.edges.set(edge.edge_id, edge);
    if (previous) return;
    link(this.outgoing, edge.source_node_id, edge.edge_id);
    link(this.incoming, edge.target_node_id, edge.edge_id);
    this.degrees.set(edge.source_node_id, (this.degrees.get(edge.source_node_id) ?? 0) + 1);
    if (edge.target_node_id !== edge.source_node_id) {
      this.degrees.set(edge.target_node_id, (this.degrees.get(edge.target_node_id) ?? 0) + 1);
    }
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
    return this.degrees.get(nodeId) ?? 0;
  }

  inIds(nodeId: string): ReadonlySet<string> | undefined {
    return this.incoming.get(nodeId);
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

function grow<T extends Uint32Array | Int32Array>(array: T, length: number): T {
  const grown = new (array.constructor as new (length: number) => T)(length);
  grown.set(array);
  return grown;
}
