/**
 * Upkeep of LanceDB tables, off the request path: compaction of the small fragments that every commit
 * adds, the scalar indexes brought up to the rows written since, and versions older than the retention
 * removed, all by one `optimize()`.
 *
 * LanceDB 0.37's `optimize()` rewrites every fragment under a million rows that has a neighbour to merge
 * with, so a compaction costs the whole table: it runs only once the rows written since the last one are a
 * quarter of the table (or the fragments many), which keeps the total rewritten to a few times the table's
 * size however it was fed. Writes note their table (`touch`); a table due is optimized in the background,
 * one table at a time per process, never holding a writer or a reader: commits are optimistic, so a write
 * that lands while a compaction runs makes one of the two retry (the compaction, a few times, then later).
 */
import { Index, type Table } from '@lancedb/lancedb';
import { log } from '@tessera/core';
import type { LanceDatabase } from './connection';

export interface MaintenancePolicy {
  /** Fragments beyond the largest that make a compaction due, whatever their rows. */
  maxFragments: number;
  /** Rows outside the largest fragment, as a share of it, that make a compaction due (with 4+ fragments). */
  growthShare: number;
  /** Versions younger than this are kept (readers may still be reading them). */
  retainMs: number;
  /** Attempts of a compaction preempted by concurrent commits. */
  attempts: number;
  /**
   * Rows a scalar index (the B-trees) may leave out before it is rebuilt on its own, without a compaction
   * (~50 ms for 100,000 rows): lookups by `source_doc_id` and the joins of upserts scan the rows left out.
   */
  scalarUnindexed: number;
}

export const defaultMaintenancePolicy: MaintenancePolicy = {
  maxFragments: 96,
  growthShare: 0.25,
  retainMs: 15 * 60_000,
  attempts: 4,
  scalarUnindexed: 4096,
};

export interface MaintenanceOutcome {
  table: string;
  /** Why it ran, or why not. */
  reason: string;
  optimized: boolean;
  fragmentsBefore: number;
  fragmentsAfter?: number;
  versionsRemoved?: number;
  bytesRemoved?: number;
  /** Scalar indexes rebuilt without a compaction. */
  rebuilt?: string[];
  ms: number;
}

/** Whether the table's fragments call for a compaction, and why. */
export async function maintenanceDue(
  table: Table,
  policy: MaintenancePolicy,
): Promise<{ due: boolean; reason: string; fragments: number }> {
  const stats = await table.stats();
  const fragments = stats.fragmentStats.numFragments;
  const largest = stats.fragmentStats.lengths.max;
  const outside = stats.numRows - largest;
  if (fragments > policy.maxFragments) return { due: true, reason: `${fragments} fragments`, fragments };
  if (fragments >= 4 && outside >= policy.growthShare * largest)
    return { due: true, reason: `${outside} rows outside the largest fragment of ${largest}`, fragments };
  return { due: false, reason: `${fragments} fragments, ${outside} rows outside the largest`, fragments };
}

export class LanceMaintenance {
  private readonly pending = new Set<string>();
  private running: Promise<void> | undefined;
  private readonly outcomes: MaintenanceOutcome[] = [];

  constructor(
    private readonly db: LanceDatabase,
    readonly policy: MaintenancePolicy = defaultMaintenancePolicy,
  ) {}

  /** Notes a write to the table; maintenance, if due, follows in the background. Never waits. */
  touch(name: string): void {
    this.pending.add(name);
    this.start();
  }

  private start(): void {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.pending.size > 0) this.start();
    });
  }

  /** Resolves once no maintenance runs or waits (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** What the background runs did, latest last (at most 1,000). */
  history(): readonly MaintenanceOutcome[] {
    return this.outcomes;
  }

  private async drain(): Promise<void> {
    // Let the write that touched the table finish its request first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    while (this.pending.size > 0) {
      const name = [...this.pending][0]!;
      this.pending.delete(name);
      try {
        const outcome = await this.run(name);
        this.outcomes.push(outcome);
        if (this.outcomes.length > 1000) this.outcomes.shift();
      } catch (error) {
        log.warn('table maintenance failed; it is tried again after the next write', { table: name, error });
      }
    }
  }

  /** Optimizes the table if it is due (or `force`), retrying a compaction that concurrent commits preempt. */
  async run(name: string, force = false): Promise<MaintenanceOutcome> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    let table = await this.db.openTable(name);
    if (!table)
      return { table: name, reason: 'not deployed', optimized: false, fragmentsBefore: 0, ms: ms() };
    const { due, reason, fragments } = await maintenanceDue(table, this.policy);
    if (!due && !force) {
      const rebuilt = await this.rebuildScalarIndexes(table);
      return { table: name, reason, optimized: false, fragmentsBefore: fragments, rebuilt, ms: ms() };
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const stats = await table.optimize({ cleanupOlderThan: new Date(Date.now() - this.policy.retainMs) });
        const after = await table.stats();
        return {
          table: name,
          reason: force ? `forced (${reason})` : reason,
          optimized: true,
          fragmentsBefore: fragments,
          fragmentsAfter: after.fragmentStats.numFragments,
          versionsRemoved: stats.prune.oldVersionsRemoved,
          bytesRemoved: stats.prune.bytesRemoved,
          ms: ms(),
        };
      } catch (error) {
        if (attempt >= this.policy.attempts || !/conflict|preempted|retry/i.test((error as Error).message))
          throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
        table = (await this.db.openTable(name)) ?? table;
      }
    }
  }

  /** Rebuilds the B-trees that leave out more than `scalarUnindexed` rows; answers their columns. */
  private async rebuildScalarIndexes(table: Table): Promise<string[]> {
    const rebuilt: string[] = [];
    for (const index of await table.listIndices()) {
      if (index.indexType !== 'BTree' && index.indexType !== 'BTREE') continue;
      const stats = await table.indexStats(index.name);
      if (!stats || stats.numUnindexedRows <= this.policy.scalarUnindexed) continue;
      const column = index.columns[0]!;
      try {
        await table.createIndex(column, { config: Index.btree(), replace: true });
        rebuilt.push(column);
      } catch (error) {
        // A concurrent commit won: the next write tries again.
        if (!/conflict|preempted|retry/i.test((error as Error).message)) throw error;
      }
    }
    return rebuilt;
  }
}

const maintainers = new Map<LanceDatabase, LanceMaintenance>();

/** The process's maintenance of a database: every adapter writing to it notes its writes there. */
export function lanceMaintenance(db: LanceDatabase): LanceMaintenance {
  let maintenance = maintainers.get(db);
  if (!maintenance) {
    maintenance = new LanceMaintenance(db);
    maintainers.set(db, maintenance);
  }
  return maintenance;
}
