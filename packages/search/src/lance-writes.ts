/**
 * The write path of the LanceDB content index: upserts keyed on `document_id`, replacement of every
 * document of some sources in one commit, field patches, and the upkeep of the tables' indexes.
 */
import { Index, type Table } from '@lancedb/lancedb';
import { KeyedSerializer } from '@tessera/core';
import type { Table as ArrowTable } from 'apache-arrow';
import type { LanceDatabase } from './connection';
import { sqlString } from './content-index';
import { lanceMaintenance } from './lance-maintenance';
import { type DocumentRow, documentTable } from './rows';
import type { SchemaTemplate } from './templates';

/** The column whose field metadata records the encoder of a table's vectors, and the key. */
const EMBEDDING = 'embedding';
const ENCODER_KEY = 'tessera:encoder';

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
   * B-trees on `document_id` (the key of upserts and of the lookups of second phases and result fields) and
   * on `source_doc_id` (the lookups of source replacements). Text needs no index: BM25 is computed in memory
   * (text-index.ts); full-text indexes of tables made before stay, unused.
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
    const fields = new Set(template.document.fields.map((field) => field.name));
    const wanted = ['document_id', 'source_doc_id']
      .filter((column) => fields.has(column))
      .map((column) => [column, Index.btree()] as const);
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

  /**
   * One commit either way. When the sources hold no document that the rows leave out (new sources, or
   * sources rewritten with the same ids), an upsert keyed on `document_id` through its B-tree, whose cost
   * is the batch's; otherwise a merge that also deletes what the sources held beyond the rows, which joins
   * the whole table.
   */
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
    const kept = new Set(rows.map((row) => row.document_id));
    const held = (await table.query().where(where).select(['document_id']).toArray()) as {
      document_id: string;
    }[];
    const stale = held.some((row) => !kept.has(row.document_id));
    let merge = table.mergeInsert('document_id').whenMatchedUpdateAll().whenNotMatchedInsertAll();
    if (stale) merge = merge.whenNotMatchedBySourceDelete({ where });
    await this.writes.run(name, () => merge.execute(documentTable(template, rows) as ArrowTable));
  }

  async deleteOlderGeneration(name: string, sourceDocId: string, generation: number): Promise<void> {
    const table = await this.requireTable(name);
    await this.writes.run(name, () =>
      table.delete(
        `source_doc_id = ${sqlString(sourceDocId)} AND (ingested_at IS NULL OR ingested_at < ${generation})`,
      ),
    );
  }

  /** Notes the write: the table's upkeep follows in the background when due (lance-maintenance.ts). */
  async maintain(name: string): Promise<boolean> {
    lanceMaintenance(this.db).touch(name);
    return false;
  }

  /** Compacts the table, brings its indexes up to date and removes old versions, now. */
  async optimize(name: string): Promise<void> {
    await lanceMaintenance(this.db).run(name, true);
  }

  async encoderOf(name: string): Promise<string | undefined> {
    const table = await this.db.openTable(name);
    if (!table) return undefined;
    const field = (await table.schema()).fields.find((f) => f.name === EMBEDDING);
    return field?.metadata.get(ENCODER_KEY) ?? undefined;
  }

  /** On the `embedding` field's metadata, so it goes wherever the vectors go and a new table starts without. */
  async recordEncoder(name: string, fingerprint: string): Promise<void> {
    const table = await this.requireTable(name);
    await this.writes.run(name, () =>
      table.updateFieldMetadata([{ path: EMBEDDING, metadata: { [ENCODER_KEY]: fingerprint } }]),
    );
  }

  async sample(name: string, limit: number, columns: string[]): Promise<Record<string, unknown>[]> {
    const table = await this.db.openTable(name);
    if (!table) return [];
    return table.query().select(columns).limit(limit).toArray();
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
