/**
 * An in-memory graph store over the in-memory search database: a tenant's graph is rows in its deployed
 * table (copies, as a table holds them), read into a `TenantGraph` once per table version, and planned,
 * embedded and applied by the same merge rules as the LanceDB adapter. Another store over the same
 * database is another process: its writes move the version, and the graph is read again.
 */
import type { MultiVectorEncoder } from '@tessera/encoders';
import {
  applyPlan,
  embedNodes,
  type GraphEdge,
  type GraphStore,
  type GraphWrite,
  type NodeState,
  nodesToEmbed,
  planUpsert,
  TenantGraph,
  type UpsertCounts,
} from '@tessera/graph';
import type { InMemorySearchDatabase, MemoryTable } from './search';

type GraphRow = { document_id: string } & (
  | { record_type: 'node'; node: NodeState }
  | { record_type: 'edge'; edge: GraphEdge }
);

export class InMemoryGraphStore implements GraphStore {
  /** Each schema's graph, with the table it was read from (one dropped and deployed again is another). */
  private readonly graphs = new Map<string, { table: MemoryTable; graph: TenantGraph }>();
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(
    readonly db: InMemorySearchDatabase,
    private readonly encoder: MultiVectorEncoder,
  ) {}

  async graph(schema: string): Promise<TenantGraph> {
    const table = this.db.table(schema);
    return table ? this.graphOf(schema, table) : new TenantGraph(-1);
  }

  private graphOf(schema: string, table: MemoryTable): TenantGraph {
    const cached = this.graphs.get(schema);
    if (cached?.table === table && cached.graph.version === table.version) return cached.graph;
    const graph = new TenantGraph(table.version);
    for (const row of table.rows.values() as Iterable<unknown>) {
      const stored = structuredClone(row as GraphRow);
      if (stored.record_type === 'node') graph.setNode(stored.node);
      else graph.addEdge(stored.edge);
    }
    this.graphs.set(schema, { table, graph });
    return graph;
  }

  upsert(schema: string, writes: readonly GraphWrite[]): Promise<UpsertCounts[]> {
    // One tenant's upserts one after another, as the adapter serializes them.
    const previous = this.writes.get(schema) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.apply(schema, writes));
    this.writes.set(schema, next);
    return next;
  }

  private async apply(schema: string, writes: readonly GraphWrite[]): Promise<UpsertCounts[]> {
    const table = this.db.table(schema);
    if (!table) throw new Error(`Graph schema ${schema} is not deployed`);
    const graph = this.graphOf(schema, table);
    const plan = planUpsert(graph, writes);
    await embedNodes(this.encoder, nodesToEmbed(graph, plan));
    if (!this.db.table(schema)) throw new Error(`Graph schema ${schema} is not deployed`);
    if (plan.nodes.size + plan.edges.size > 0) {
      for (const node of plan.nodes.values())
        table.rows.set(
          node.node_id,
          structuredClone({ document_id: node.node_id, record_type: 'node', node }),
        );
      for (const edge of plan.edges.values())
        table.rows.set(
          edge.edge_id,
          structuredClone({ document_id: edge.edge_id, record_type: 'edge', edge }),
        );
      const ours = table.version === graph.version;
      table.version++;
      applyPlan(graph, plan);
      if (ours) graph.version = table.version;
      else this.graphs.delete(schema);
    }
    return plan.counts;
  }
}
