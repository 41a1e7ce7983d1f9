/**
 * In-memory search backend and content index over one shared database of tables, as the LanceDB adapters
 * share a connection: a schema the backend deploys is a table the index writes to. Vector scores are the
 * real MaxSim functions over every document (the adapter's band and rerank cuts are not modelled); text
 * ranking is a plain BM25 per field (k1 1.2, b 0.75, words of letters and digits, lower-cased), so its
 * scores and ties can differ from LanceDB's full-text index.
 */
import {
  binaryMaxSim,
  type ContentIndex,
  codeWords,
  type DocumentRow,
  floatBinaryMaxSim,
  floatMaxSim,
  type MigrationResult,
  type QueryVectors,
  queryTokenWeights,
  type SchemaTemplate,
  type Scored,
  type SearchBackend,
  top,
  unpackedBitTables,
} from '@tessera/search';

export interface MemoryTable {
  template: SchemaTemplate;
  /** The encoder recorded with the table's vectors. */
  encoder?: string;
  rows: Map<string, Record<string, unknown>>;
  /** Counts commits, as a LanceDB table's version does. */
  version: number;
}

/** The tables of one database; several stores over one database see each other's writes. */
export class InMemorySearchDatabase {
  readonly tables = new Map<string, MemoryTable>();

  table(name: string): MemoryTable | undefined {
    return this.tables.get(name);
  }

  requireTable(name: string): MemoryTable {
    const table = this.tables.get(name);
    if (!table) throw new Error(`Schema ${name} is not deployed`);
    return table;
  }
}

export class InMemorySearchBackend implements SearchBackend {
  constructor(readonly db: InMemorySearchDatabase = new InMemorySearchDatabase()) {}

  async deploySchema(schemaName: string, template: SchemaTemplate): Promise<void> {
    if (!this.db.tables.has(schemaName))
      this.db.tables.set(schemaName, { template, rows: new Map(), version: 1 });
  }

  async listSchemas(): Promise<string[]> {
    return [...this.db.tables.keys()].sort();
  }

  async dropSchema(schemaName: string): Promise<void> {
    this.db.tables.delete(schemaName);
  }

  async migrateSchema(schemaName: string, template: SchemaTemplate): Promise<MigrationResult> {
    const table = this.db.tables.get(schemaName);
    if (!table) {
      await this.deploySchema(schemaName, template);
      return { status: 'migrated', added: template.document.fields.map((f) => f.name) };
    }
    const live = new Map(table.template.document.fields.map((field) => [field.name, field]));
    const problems: string[] = [];
    for (const field of template.document.fields) {
      const current = live.get(field.name);
      if (current && current.type !== field.type)
        problems.push(`field '${field.name}' would change type from ${current.type} to ${field.type}`);
    }
    const kept = new Set(template.document.fields.map((field) => field.name));
    for (const name of live.keys()) if (!kept.has(name)) problems.push(`field '${name}' would be removed`);
    if (problems.length > 0) {
      return {
        status: 'refused',
        reason: `${problems.join('; ')}: drop the tenant schema and feed its documents again`,
      };
    }
    const added = template.document.fields.filter((field) => !live.has(field.name)).map((f) => f.name);
    table.template = template;
    if (added.length > 0) table.version++;
    return { status: 'migrated', added };
  }

  async ping(): Promise<void> {}
}

type Matrix = { tokens: number; values: Float32Array | Uint8Array } | undefined;

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export class InMemoryContentIndex implements ContentIndex {
  constructor(readonly db: InMemorySearchDatabase) {}

  async ensureIndexes(name: string): Promise<void> {
    this.db.requireTable(name);
  }

  async upsert(name: string, _template: SchemaTemplate, rows: DocumentRow[]): Promise<void> {
    if (rows.length === 0) return;
    const table = this.db.requireTable(name);
    for (const row of rows) table.rows.set(row.document_id, { ...row });
    table.version++;
  }

  async patch(name: string, _template: SchemaTemplate, fields: string[], rows: DocumentRow[]): Promise<void> {
    if (rows.length === 0) return;
    const table = this.db.requireTable(name);
    for (const row of rows) {
      const stored = table.rows.get(row.document_id);
      if (!stored) continue;
      for (const field of fields) stored[field] = row[field] ?? null;
    }
    table.version++;
  }

  async replaceSources(
    name: string,
    _template: SchemaTemplate,
    sourceDocIds: string[],
    rows: DocumentRow[],
  ): Promise<void> {
    if (sourceDocIds.length === 0) return;
    const table = this.db.requireTable(name);
    const sources = new Set(sourceDocIds);
    const kept = new Set(rows.map((row) => row.document_id));
    for (const [id, row] of table.rows)
      if (sources.has(String(row.source_doc_id)) && !kept.has(id)) table.rows.delete(id);
    for (const row of rows) table.rows.set(row.document_id, { ...row });
    table.version++;
  }

  async deleteOlderGeneration(name: string, sourceDocId: string, generation: number): Promise<void> {
    const table = this.db.requireTable(name);
    for (const [id, row] of table.rows) {
      const at = row.ingested_at;
      if (row.source_doc_id === sourceDocId && (at === null || at === undefined || Number(at) < generation))
        table.rows.delete(id);
    }
    table.version++;
  }

  async maintain(name: string): Promise<boolean> {
    this.db.requireTable(name);
    return false;
  }

  async encoderOf(name: string): Promise<string | undefined> {
    return this.db.table(name)?.encoder;
  }

  async recordEncoder(name: string, fingerprint: string): Promise<void> {
    const table = this.db.requireTable(name);
    table.encoder = fingerprint;
    table.version++;
  }

  async sample(name: string, limit: number, columns: string[]): Promise<Record<string, unknown>[]> {
    const table = this.db.table(name);
    if (!table) return [];
    return [...table.rows.values()]
      .slice(0, limit)
      .map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? null])));
  }

  async count(name: string, where?: { sourceDocId?: string }): Promise<number> {
    const table = this.db.table(name);
    if (!table) return 0;
    if (where?.sourceDocId === undefined) return table.rows.size;
    return [...table.rows.values()].filter((row) => row.source_doc_id === where.sourceDocId).length;
  }

  async fetch(name: string, ids: readonly string[], columns: string[]): Promise<Record<string, unknown>[]> {
    if (ids.length === 0) return [];
    const table = this.db.requireTable(name);
    return [...new Set(ids)].flatMap((id) => {
      const row = table.rows.get(id);
      return row ? [Object.fromEntries(columns.map((column) => [column, row[column] ?? null]))] : [];
    });
  }

  /** The rows a phase scores: all, or those of `ids` that exist. */
  private candidates(name: string, ids?: readonly string[]): Record<string, unknown>[] {
    const table = this.db.table(name);
    if (!table) return [];
    if (!ids) return [...table.rows.values()];
    return [...new Set(ids)].flatMap((id) => {
      const row = table.rows.get(id);
      return row ? [row] : [];
    });
  }

  async bm25(
    name: string,
    fields: string[],
    text: string,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    const terms = [...new Set(words(text))];
    if (terms.length === 0 || fields.length === 0 || ids?.length === 0) return [];
    const all = this.candidates(name);
    const scope = ids ? new Set(ids) : undefined;
    const scores = new Map<string, number>();
    for (const field of fields) {
      // Document frequencies and lengths over the whole table, as a text index has them.
      const tokens = all.map((row) => words(typeof row[field] === 'string' ? (row[field] as string) : ''));
      const average = tokens.reduce((sum, t) => sum + t.length, 0) / Math.max(1, tokens.length) || 1;
      for (const term of terms) {
        const frequency = tokens.filter((t) => t.includes(term)).length;
        if (frequency === 0) continue;
        const idf = Math.log(1 + (all.length - frequency + 0.5) / (frequency + 0.5));
        all.forEach((row, i) => {
          const id = String(row.document_id);
          if (scope && !scope.has(id)) return;
          const tf = tokens[i]!.filter((token) => token === term).length;
          if (tf === 0) return;
          const norm = tf + 1.2 * (1 - 0.75 + (0.75 * tokens[i]!.length) / average);
          scores.set(id, (scores.get(id) ?? 0) + (idf * tf * 2.2) / norm);
        });
      }
    }
    return top(
      [...scores].map(([id, score]) => ({ id, score })),
      ids ? ids.length : limit,
    );
  }

  async binaryMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    if (query.tokens === 0) return [];
    const q = codeWords(query.binary);
    const weights = queryTokenWeights(query.vectors, query.tokens);
    return top(
      this.candidates(name, ids).map((row) => {
        const codes = row.embedding_binary as Matrix;
        const score = codes
          ? binaryMaxSim(q, query.tokens, codeWords(codes.values as Uint8Array), 0, codes.tokens, weights)
          : 0;
        return { id: String(row.document_id), score };
      }),
      limit,
    );
  }

  async floatBinaryMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    if (query.tokens === 0) return [];
    const tables = unpackedBitTables(query.vectors, query.tokens);
    return top(
      this.candidates(name, ids).map((row) => {
        const codes = row.embedding_binary as Matrix;
        const score = codes
          ? floatBinaryMaxSim(tables, query.tokens, codes.values as Uint8Array, 0, codes.tokens)
          : 0;
        return { id: String(row.document_id), score };
      }),
      limit,
    );
  }

  async floatMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
    onTargets?: (ids: string[]) => void,
  ): Promise<Scored[]> {
    if (query.tokens === 0 || ids?.length === 0) return [];
    const rows = this.candidates(name, ids);
    if (!ids) {
      if (rows.length === 0) return [];
      // Every document is a target: this index scores them all exactly.
      onTargets?.(rows.map((row) => String(row.document_id)));
    }
    return top(
      rows.map((row) => {
        const floats = row.embedding as Matrix;
        const score = floats
          ? floatMaxSim(query.vectors, query.tokens, floats.values as Float32Array, 0, floats.tokens)
          : 0;
        return { id: String(row.document_id), score };
      }),
      limit,
    );
  }
}
