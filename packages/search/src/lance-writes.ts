/**
 * The write path of the LanceDB content index: upserts keyed on `document_id`, replacement of every
 * document of some sources in one commit, field patches, and the upkeep of the tables' indexes.
 */
import { Index, type Table } from '@lancedb/lancedb';
import { KeyedSerializer } from '@tessera/core';
import type { Table as ArrowTable } from 'apache-arrow';
import type { LanceDatabase } from './connection';
import { sqlString } from './content-index';
import { type DocumentRow, documentTable } from './rows';
import type { SchemaTemplate } from './templates';

export const idList = (ids: readonly string[]) => ids.map(sqlString).join(', ');

export class LanceContentWriter {
  /** Tables (by identity: name and incarnation) whose indexes this process made sure of. */
  private readonly indexed = new Set<string>();
  private readonly indexing = new Map<string, Promise<void>>();
  /**
   * Writes to one table from this process go one at a time: they would only conflict at commit (and be
   * retried) otherwise, and LanceDB has been seen to stall with several commits racing on one table.
   */
  private readonly writes = new KeyedSerializer();

  constructor(private readonly db: LanceDatabase) {}

  private async requireTable(name: string): Promise<Table> {
    const table = await this.db.openTable(name);
    if (!table) throw new Error(`Schema ${name} is not deployed`);
    return table;
  }

  /**
   * A full-text index on every `fulltext` field (one per column), and a B-tree on `document_id` for the
   * lookups of second phases and result fields.
   */
  async ensureIndexes(name: string, template: SchemaTemplate): Promise<void> {
    // A table dropped and created again under the name is another table, without the indexes.
    const identity = this.db.identity(await this.requireTable(name));
    if (this.indexed.has(identity)) return;
    // One creation a table at a time in this process; other processes may race, and then one retries.
    let pending = this.indexing.get(identity);
    if (!pending) {
      pending = this.createIndexes(name, identity, template).finally(() => this.indexing.delete(identity));
      this.indexing.set(identity, pending);
    }
    await pending;
  }

  private async createIndexes(name: string, identity: string, template: SchemaTemplate): Promise<void> {
    const wanted = template.document.fields
      .filter((field) => field.fulltext)
      .map((field) => [field.name, Index.fts({ withPosition: false })] as const);
    if (template.document.fields.some((field) => field.name === 'document_id'))
      wanted.push(['document_id', Index.btree()]);
    for (let attempt = 0; ; attempt++) {
      const table = await this.requireTable(name);
      if (this.db.identity(table) !== identity) throw new Error(`Schema ${name} was dropped meanwhile`);
      const existing = new Set((await table.listIndices()).flatMap((index) => index.columns));
      try {
        for (const [column, config] of wanted) {
          if (existing.has(column)) continue;
          await this.writes
            .run(name, () => table.createIndex(column, { config, replace: false }))
            .catch((error) => {
              if (!/already exists/i.test((error as Error).message)) throw error;
            });
        }
        this.indexed.add(identity);
        return;
      } catch (error) {
        // Another writer committed first (its index, or rows): look again at what the table has.
        if (attempt >= 4 || !/conflict|preempted/i.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      }
    }
  }

  async upsert(name: string, template: SchemaTemplate, rows: DocumentRow[]): Promise<void> {
    if (rows.length === 0) return;
    const table = await this.requireTable(name);
    await this.writes.run(name, () =>
      table
        .mergeInsert('document_id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute(documentTable(template, rows) as ArrowTable),
    );
  }

  async patch(name: string, template: SchemaTemplate, fields: string[], rows: DocumentRow[]): Promise<void> {
    if (rows.length === 0) return;
    const table = await this.requireTable(name);
    const columns = ['document_id', ...fields.filter((field) => field !== 'document_id')];
    await this.writes.run(name, () =>
      table
        .mergeInsert('document_id')
        .whenMatchedUpdateAll()
        .execute(documentTable(template, rows, columns) as ArrowTable),
    );
  }

  async replaceSources(
    name: string,
    template: SchemaTemplate,
    sourceDocIds: string[],
    rows: DocumentRow[],
  ): Promise<void> {
    if (sourceDocIds.length === 0) return;
    const table = await this.requireTable(name);
    const where = `source_doc_id IN (${idList(sourceDocIds)})`;
    if (rows.length === 0) {
      await this.writes.run(name, () => table.delete(where));
      return;
    }
    await this.writes.run(name, () =>
      table
        .mergeInsert('document_id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .whenNotMatchedBySourceDelete({ where })
        .execute(documentTable(template, rows) as ArrowTable),
    );
  }

  async deleteOlderGeneration(name: string, sourceDocId: string, generation: number): Promise<void> {
    const table = await this.requireTable(name);
    await this.writes.run(name, () =>
      table.delete(
        `source_doc_id = ${sqlString(sourceDocId)} AND (ingested_at IS NULL OR ingested_at < ${generation})`,
      ),
    );
  }

  /**
   * Folds written rows into the indexes once enough of them are not indexed yet: text search over
   * unindexed rows is a scan, cheap for a few thousand rows and slow beyond.
   */
  async maintain(name: string, unindexedLimit = 5_000): Promise<boolean> {
    const table = await this.requireTable(name);
    const text = (await table.listIndices()).find((index) => index.indexType === 'FTS');
    if (!text) return false;
    const stats = await table.indexStats(text.name);
    if (!stats || stats.numUnindexedRows < unindexedLimit) return false;
    await this.optimize(name);
    return true;
  }

  /** Folds newly written rows into the indexes, so text search stays indexed rather than scanning. */
  async optimize(name: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const table = await this.requireTable(name);
      try {
        await this.writes.run(name, () => table.optimize());
        return;
      } catch (error) {
        if (attempt >= 4 || !/conflict/i.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      }
    }
  }

  async count(name: string, where?: { sourceDocId?: string }): Promise<number> {
    const table = await this.db.openTable(name);
    if (!table) return 0;
    return table.countRows(
      where?.sourceDocId === undefined ? undefined : `source_doc_id = ${sqlString(where.sourceDocId)}`,
    );
  }

  async fetch(name: string, ids: readonly string[], columns: string[]): Promise<Record<string, unknown>[]> {
    if (ids.length === 0) return [];
    const table = await this.requireTable(name);
    return table
      .query()
      .where(`document_id IN (${idList(ids)})`)
      .select(columns)
      .limit(ids.length)
      .toArray();
  }
}
