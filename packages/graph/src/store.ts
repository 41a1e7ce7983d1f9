/**
 * The graph store port: each tenant's graph lives in its `knowledge_graph_<org>_<tenant>` schema and, once
 * read, in memory (a `TenantGraph`), where traversals run. Writes reach memory only once they are stored; a
 * graph another process changed is read again.
 */
import type { GraphWrite } from './model';
import type { TenantGraph } from './tenant-graph';

export interface UpsertCounts {
  /** Distinct nodes the write named (its nodes and its edges' endpoints). */
  nodes_upserted: number;
  /** Distinct edges the write named. */
  edges_upserted: number;
}

export interface GraphStore {
  /** The tenant's graph as its schema holds it now; empty when the schema is not deployed. */
  graph(schema: string): Promise<TenantGraph>;
  /**
   * Applies the writes in order as one write to the schema (many files' graphs cost one commit); answers
   * each write's counts. Fails, changing nothing, when the schema is not deployed.
   */
  upsert(schema: string, writes: readonly GraphWrite[]): Promise<UpsertCounts[]>;
}
