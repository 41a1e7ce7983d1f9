/**
 * The LanceDB adapter of the graph store: a tenant's graph is read from its table once per table version,
 * and a batch of writes is planned against it (merge.ts), stored in one commit, then applied in memory.
 */
import type { Table } from '@lancedb/lancedb';
import { KeyedSerializer } from '@tessera/core';
import type { MultiVectorEncoder } from '@tessera/encoders';
import {
  type DocumentRow,
  documentTable,
  type LanceDatabase,
  lanceMaintenance,
  type SchemaTemplate,
} from '@tessera/search';
import { edgeRow, loadGraph, nodeRow, readRows } from './lance-rows';
import { applyPlan, nodesToEmbed, planUpsert } from './merge';
import type { GraphWrite } from './model';
import { embedNodes } from './node-vectors';
import type { GraphStore, UpsertCounts } from './store';
import { TenantGraph } from './tenant-graph';

export class LanceGraphStore implements GraphStore {
  /** Each schema's graph, of the table identity (name and incarnation) it was read from. */
  private readonly graphs = new Map<string, { table: string; graph: Promise<TenantGraph> }>();
  /** Graphs brought up to date by reading the rows written since (`rows` read), and those read whole after. */
  readonly catchUps = { read: 0, rows: 0, whole: 0 };
  /** Upserts serialize per tenant; other tenants' reads and writes go on. */
  private readonly writes = new KeyedSerializer();

  constructor(
    readonly db: LanceDatabase,
    private readonly template: SchemaTemplate,
    private readonly encoder: MultiVectorEncoder,
  ) {}

  async graph(schema: string): Promise<TenantGraph> {
    const table = await this.db.openTable(schema);
    if (!table) return new TenantGraph(-1);
    return this.graphOf(schema, table);
  }

  private async graphOf(schema: string, table: Table): Promise<TenantGraph> {
    const version = await table.version();
    const identity = this.db.identity(table);
    const cached = this.graphs.get(schema);
    // A table dropped and created again counts its versions from 1 again: the graph read is another's.
    let loading: Promise<TenantGraph>;
    if (cached?.table === identity) {
      const graph = await cached.graph.catch(() => undefined);
      if (graph && graph.version >= version) return graph;
      // Another caller began reading a newer version meanwhile: share what it reads.
      if (this.graphs.get(schema) !== cached) return this.graphOf(schema, table);
      loading = graph ? this.catchUp(table, graph, version) : loadGraph(table, version);
    } else {
      loading = loadGraph(table, version);
    }
    const entry = { table: identity, graph: loading };
    this.graphs.set(schema, entry);
    loading.catch(() => {
      if (this.graphs.get(schema) === entry) this.graphs.delete(schema);
    });
    return loading;
  }

  /**
   * The graph brought to `version` by reading only the rows written since it was read: another process's
   * upserts append their new and changed rows under higher row ids (a merge marks the old ones deleted), and
   * a compaction rewrites known rows, which replace themselves. When the graph then does not hold as many
   * nodes and edges as the table has rows (rows went), the table is read whole.
   */
  private async catchUp(table: Table, graph: TenantGraph, version: number): Promise<TenantGraph> {
    this.catchUps.read++;
    this.catchUps.rows += await readRows(table, graph, graph.rowWatermark);
    if (graph.nodes.size + graph.edges.size !== (await table.countRows())) {
      this.catchUps.whole++;
      return loadGraph(table, version);
    }
    graph.version = Math.max(graph.version, version);
    return graph;
  }

  upsert(schema: string, writes: readonly GraphWrite[]): Promise<UpsertCounts[]> {
    return this.writes.run(schema, () => this.apply(schema, writes));
  }

  private async apply(schema: string, writes: readonly GraphWrite[]): Promise<UpsertCounts[]> {
    const table = await this.db.openTable(schema);
    if (!table) throw new Error(`Graph schema ${schema} is not deployed`);
    const graph = await this.graphOf(schema, table);
    const plan = planUpsert(graph, writes);
    const vectors = await embedNodes(this.encoder, nodesToEmbed(graph, plan));

    const now = Date.now();
    const nodes = [...plan.nodes.values()].map((node) => nodeRow(node, vectors.get(node.node_id), now));
    const fresh: DocumentRow[] = [];
    const changed: DocumentRow[] = [];
    for (const edge of plan.edges.values())
      (graph.edges.has(edge.edge_id) ? changed : fresh).push(edgeRow(edge, now));
    // One commit: a merge when stored rows change, else (only new edges) an append, which reads nothing.
    let commits = 0;
    if (nodes.length + changed.length > 0) {
      await table
        .mergeInsert('document_id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute(documentTable(this.template, [...nodes, ...changed, ...fresh]) as never);
      commits++;
    } else if (fresh.length > 0) {
      await table.add(documentTable(this.template, fresh) as never);
      commits++;
    }
    // Compaction and removal of old versions follow in the background when due.
    if (commits > 0) lanceMaintenance(this.db).touch(schema);

    // Stored: now memory. A version that moved by more than our own commit means another writer too: the
    // next read catches up with it (and reads our rows again, which replace themselves).
    const version = await table.version();
    applyPlan(graph, plan);
    if (version === graph.version + commits) graph.version = version;
    return plan.counts;
  }
}
