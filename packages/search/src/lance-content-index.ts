/**
 * The LanceDB adapter of the content index: its write path (`LanceContentWriter`) and its scoring engine
 * (`LanceScoring`) over one shared database connection.
 */
import type { Table } from '@lancedb/lancedb';
import type { LanceDatabase } from './connection';
import type { ContentIndex, QueryVectors, Scored } from './content-index';
import { LanceScoring, type ScoringOptions } from './lance-scoring';
import { LanceContentWriter } from './lance-writes';
import type { DocumentRow } from './rows';
import type { TableSnapshot } from './snapshot';
import type { SchemaTemplate } from './templates';

export class LanceContentIndex implements ContentIndex {
  private readonly writer: LanceContentWriter;
  private readonly scoring: LanceScoring;

  constructor(
    readonly db: LanceDatabase,
    options: Partial<ScoringOptions> = {},
  ) {
    this.writer = new LanceContentWriter(db);
    this.scoring = new LanceScoring(db, options);
  }

  get options(): ScoringOptions {
    return this.scoring.options;
  }

  /** The latest version of a table, or undefined when the schema is not deployed. */
  table(name: string): Promise<Table | undefined> {
    return this.db.openTable(name);
  }

  ensureIndexes(name: string, template: SchemaTemplate): Promise<void> {
    return this.writer.ensureIndexes(name, template);
  }

  upsert(name: string, template: SchemaTemplate, rows: DocumentRow[]): Promise<void> {
    return this.writer.upsert(name, template, rows);
  }

  patch(name: string, template: SchemaTemplate, fields: string[], rows: DocumentRow[]): Promise<void> {
    return this.writer.patch(name, template, fields, rows);
  }

  replaceSources(name: string, template: SchemaTemplate, sourceDocIds: string[], rows: DocumentRow[]) {
    return this.writer.replaceSources(name, template, sourceDocIds, rows);
  }

  deleteOlderGeneration(name: string, sourceDocId: string, generation: number): Promise<void> {
    return this.writer.deleteOlderGeneration(name, sourceDocId, generation);
  }

  maintain(name: string): Promise<boolean> {
    return this.writer.maintain(name);
  }

  /** Compacts the table, brings its indexes up to date and removes old versions, now. */
  optimize(name: string): Promise<void> {
    return this.writer.optimize(name);
  }

  count(name: string, where?: { sourceDocId?: string }): Promise<number> {
    return this.writer.count(name, where);
  }

  encoderOf(name: string): Promise<string | undefined> {
    return this.writer.encoderOf(name);
  }

  recordEncoder(name: string, fingerprint: string): Promise<void> {
    return this.writer.recordEncoder(name, fingerprint);
  }

  sample(name: string, limit: number, columns: string[]): Promise<Record<string, unknown>[]> {
    return this.writer.sample(name, limit, columns);
  }

  fetch(name: string, ids: readonly string[], columns: string[]): Promise<Record<string, unknown>[]> {
    return this.writer.fetch(name, ids, columns);
  }

  bm25(name: string, fields: string[], text: string, limit: number, ids?: readonly string[]) {
    return this.scoring.bm25(name, fields, text, limit, ids);
  }

  binaryMaxSim(name: string, query: QueryVectors, limit: number, ids?: readonly string[]) {
    return this.scoring.binaryMaxSim(name, query, limit, ids);
  }

  floatBinaryMaxSim(name: string, query: QueryVectors, limit: number, ids?: readonly string[]) {
    return this.scoring.floatBinaryMaxSim(name, query, limit, ids);
  }

  /** How long the latest snapshot refreshes took (diagnostics for benchmarks). */
  get refreshes(): readonly { ms: number; whole: boolean; fresh: number }[] {
    return this.scoring.refreshes;
  }

  /** The in-memory snapshot the scoring phases read (see snapshot.ts), brought up to the latest version. */
  snapshot(name: string, textFields?: readonly string[]): Promise<TableSnapshot | undefined> {
    return this.scoring.snapshot(name, textFields);
  }

  /** The documents float MaxSim scores exactly when given no ids (see `LanceScoring.floatTargets`). */
  floatTargets(name: string, query: QueryVectors): Promise<string[]> {
    return this.scoring.floatTargets(name, query);
  }

  floatMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
    onTargets?: (ids: string[]) => void,
  ): Promise<Scored[]> {
    return this.scoring.floatMaxSim(name, query, limit, ids, onTargets);
  }
}
