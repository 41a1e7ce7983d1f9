/**
 * The content index of one LanceDB database: feeding documents into tenant schemas (upserts keyed on
 * `document_id`, replacement of every document of a source) and the scoring primitives the ranking
 * strategies are made of: BM25, binary and float MaxSim, float-query-over-binary MaxSim.
 */
import { type Connection, connect, Index, MatchQuery, MultiMatchQuery, type Table } from '@lancedb/lancedb';
import { KeyedSerializer } from '@tessera/core';
import type { Table as ArrowTable, RecordBatch } from 'apache-arrow';
import { type BandIndex, bandCandidates, buildBandIndex } from './candidates';
import { type DistinctCodes, distinctCodes, floatBitsScores, RepeatedFloatMaxSim } from './distinct';
import { type DocumentRow, documentTable } from './rows';
import {
  binaryMaxSim,
  CODE_WORDS,
  codeWords,
  floatBinaryMaxSim,
  floatMaxSim,
  TOKEN_DIM,
  unpackedBitTables,
} from './scoring';
import type { SchemaTemplate } from './templates';

export interface Scored {
  id: string;
  score: number;
}

/** A query's token vectors: `tokens` × 128 floats and × 16 packed bytes. */
export interface QueryVectors {
  tokens: number;
  vectors: Float32Array;
  binary: Uint8Array;
}

interface CodeCache {
  version: number;
  ids: string[];
  /** Token offsets per document (length documents + 1). */
  offsets: Int32Array;
  bytes: Uint8Array;
  words: Uint32Array;
  /** Token numbers of distinct codes, when codes repeat enough for it to pay. */
  distinct?: DistinctCodes;
  /** Each document's Lance row id at this version: its float vectors are read by row id, not by a filter. */
  rowIds: BigUint64Array;
  /** Built on first use: document number by id, and the band index of large tables. */
  positions?: Map<string, number>;
  bands?: BandIndex;
}

export interface ContentIndexOptions {
  /** Tables with at most this many documents are scored exhaustively; larger ones through band candidates. */
  exactScanLimit: number;
  /** How many band candidates a first phase scores exactly. */
  candidateLimit: number;
  /** How many documents, best by the float-query·bits score, get their exact float MaxSim. */
  floatRerankLimit: number;
}

const defaults: ContentIndexOptions = {
  exactScanLimit: 20_000,
  candidateLimit: 2_000,
  floatRerankLimit: 128,
};

/** SQL string literal for LanceDB filters: quotes doubled. */
export const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;
const idList = (ids: readonly string[]) => ids.map(sqlString).join(', ');

export class LanceContentIndex {
  private connection: Promise<Connection> | undefined;
  private readonly codes = new Map<string, Promise<CodeCache>>();
  /** The last code cache of each table whose loading finished. */
  private readonly loadedCodes = new Map<string, CodeCache>();
  private readonly indexed = new Set<string>();
  private readonly indexing = new Map<string, Promise<void>>();
  /**
   * Writes to one table from this process go one at a time: they would only conflict at commit (and be
   * retried) otherwise, and LanceDB has been seen to stall with several commits racing on one table.
   */
  private readonly writes = new KeyedSerializer();
  /** The unpacked-bit tables of the last float·bits query, whose memory the next one reuses. */
  private tablesScratch: Float32Array | undefined;

  readonly options: ContentIndexOptions;

  constructor(
    readonly uri: string,
    options: Partial<ContentIndexOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
  }

  private db(): Promise<Connection> {
    this.connection ??= connect(this.uri).catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  /** The latest version of a table, or undefined when the schema is not deployed. */
  async table(name: string): Promise<Table | undefined> {
    const db = await this.db();
    try {
      return await db.openTable(name);
    } catch (error) {
      if (/was not found|does not exist/i.test((error as Error).message)) return undefined;
      throw error;
    }
  }

  private async requireTable(name: string): Promise<Table> {
    const table = await this.table(name);
    if (!table) throw new Error(`Schema ${name} is not deployed`);
    return table;
  }

  /**
   * A full-text index on every `fulltext` field (one per column), and a B-tree on `document_id` for the
   * lookups of second phases and result fields.
   */
  async ensureIndexes(name: string, template: SchemaTemplate): Promise<void> {
    if (this.indexed.has(name)) return;
    // One creation a table at a time in this process; other processes may race, and then one retries.
    let pending = this.indexing.get(name);
    if (!pending) {
      pending = this.createIndexes(name, template).finally(() => this.indexing.delete(name));
      this.indexing.set(name, pending);
    }
    await pending;
  }

  private async createIndexes(name: string, template: SchemaTemplate): Promise<void> {
    const wanted = template.document.fields
      .filter((field) => field.fulltext)
      .map((field) => [field.name, Index.fts({ withPosition: false })] as const);
    if (template.document.fields.some((field) => field.name === 'document_id'))
      wanted.push(['document_id', Index.btree()]);
    for (let attempt = 0; ; attempt++) {
      const table = await this.requireTable(name);
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
        this.indexed.add(name);
        return;
      } catch (error) {
        // Another writer committed first (its index, or rows): look again at what the table has.
        if (attempt >= 4 || !/conflict|preempted/i.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      }
    }
  }

  /** Upserts documents by `document_id`. */
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

  /**
   * Sets the named fields of documents already stored, in one commit, leaving their other fields (and
   * vectors) as they are; ids not in the table are ignored.
   */
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

  /** Replaces every document of `sourceDocId` with `rows` in one commit: re-indexing never duplicates. */
  async replaceSource(
    name: string,
    template: SchemaTemplate,
    sourceDocId: string,
    rows: DocumentRow[],
  ): Promise<void> {
    await this.replaceSources(name, template, [sourceDocId], rows);
  }

  /**
   * Replaces every document of several sources in one commit: the rows given are written, and what those
   * sources held before and is not among them is deleted. Many small files cost one write, not one each.
   */
  async replaceSources(
    name: string,
    template: SchemaTemplate,
    sourceDocIds: string[],
    rows: DocumentRow[],
  ): Promise<void> {
    if (sourceDocIds.length === 0) return;
    const table = await this.requireTable(name);
    const where = `source_doc_id IN (${sourceDocIds.map(sqlString).join(', ')})`;
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

  /** Removes the documents of a source written before `generation` (their `ingested_at`). */
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

  async deleteSource(name: string, sourceDocId: string): Promise<void> {
    const table = await this.table(name);
    if (table) await this.writes.run(name, () => table.delete(`source_doc_id = ${sqlString(sourceDocId)}`));
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

  async count(name: string, filter?: string): Promise<number> {
    const table = await this.table(name);
    return table ? table.countRows(filter) : 0;
  }

  /** Rows by id, with the requested columns. */
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

  // --- scoring -------------------------------------------------------------------------------------------

  /** BM25 over the given text fields (scores summed across fields); restricted to `ids` when given. */
  async bm25(
    name: string,
    fields: string[],
    text: string,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    const table = await this.table(name);
    if (!table || text.trim() === '' || fields.length === 0 || ids?.length === 0) return [];
    const query = fields.length === 1 ? new MatchQuery(text, fields[0]!) : new MultiMatchQuery(text, fields);
    let search = table
      .query()
      .fullTextSearch(query)
      .select(['document_id', '_score'])
      .limit(ids ? ids.length : limit);
    if (ids) search = search.where(`document_id IN (${idList(ids)})`);
    const rows = (await search.toArray()) as { document_id: string; _score: number }[];
    return rows.map((row) => ({ id: row.document_id, score: row._score }));
  }

  /** Every document's packed token codes, loaded once per table version. */
  private async codesOf(name: string, table: Table): Promise<CodeCache> {
    const version = await table.version();
    const cached = this.codes.get(name);
    if (cached) {
      const codes = await cached;
      if (codes.version === version) return codes;
    }
    const loading = loadCodes(table, version);
    this.codes.set(name, loading);
    // The previous version's codes go as soon as no query holds them.
    this.loadedCodes.delete(name);
    loading.then(
      (codes) => {
        if (this.codes.get(name) === loading) this.loadedCodes.set(name, codes);
      },
      () => this.codes.delete(name),
    );
    return loading;
  }

  /** The code cache of the table's version when it is loaded already; never starts a load. */
  private async loadedCodesOf(name: string, table: Table): Promise<CodeCache | undefined> {
    const codes = this.loadedCodes.get(name);
    return codes && codes.version === (await table.version()) ? codes : undefined;
  }

  /** Document numbers of the ids that the code cache holds, in the order given. */
  private positionsOf(codes: CodeCache, ids: readonly string[]): Int32Array {
    codes.positions ??= new Map(codes.ids.map((id, doc) => [id, doc]));
    const positions = codes.positions;
    return Int32Array.from(ids.flatMap((id) => (positions.has(id) ? [positions.get(id)!] : [])));
  }

  /**
   * The documents a first phase scores: the given ids; every document of a table up to `exactScanLimit`;
   * above it, the band-index candidates of the query.
   */
  private documentsFor(
    codes: CodeCache,
    query: QueryVectors,
    ids?: readonly string[],
  ): Int32Array | undefined {
    if (ids) return this.positionsOf(codes, ids);
    if (codes.ids.length <= this.options.exactScanLimit) return undefined;
    codes.bands ??= buildBandIndex(codes.words, codes.offsets, codes.ids.length);
    return bandCandidates(codes.bands, codeWords(query.binary), query.tokens, this.options.candidateLimit);
  }

  /** Binary MaxSim (per query token `1 - 2h/128`, max over document tokens, mean over query tokens). */
  async binaryMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    const table = await this.table(name);
    if (!table || query.tokens === 0) return [];
    const codes = await this.codesOf(name, table);
    const q = codeWords(query.binary);
    const { offsets, words } = codes;
    return scoredOf(
      codes,
      best(codes, this.documentsFor(codes, query, ids), limit, (doc) =>
        binaryMaxSim(q, query.tokens, words, offsets[doc]! * CODE_WORDS, offsets[doc + 1]! - offsets[doc]!),
      ),
    );
  }

  /** Float query against the unpacked (0/1) bits of the document tokens, max over tokens, summed. */
  async floatBinaryMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    const table = await this.table(name);
    if (!table || query.tokens === 0) return [];
    const codes = await this.codesOf(name, table);
    return scoredOf(codes, this.floatBits(codes, query, limit, this.documentsFor(codes, query, ids)));
  }

  private floatBits(
    codes: CodeCache,
    query: QueryVectors,
    limit: number,
    docs: Int32Array | undefined,
  ): Ranked {
    const tables = unpackedBitTables(query.vectors, query.tokens, this.tablesScratch);
    this.tablesScratch = tables;
    const { offsets, bytes, distinct } = codes;
    if (distinct) {
      const scores = floatBitsScores(distinct, tables, query.tokens, offsets, docs, codes.ids.length);
      return best(codes, docs, limit, (_, i) => scores[i]!);
    }
    return best(codes, docs, limit, (doc) =>
      floatBinaryMaxSim(tables, query.tokens, bytes, offsets[doc]! * 16, offsets[doc + 1]! - offsets[doc]!),
    );
  }

  /**
   * The documents float MaxSim scores exactly when given no ids: the `floatRerankLimit` that the
   * float-query·bits score ranks best among a first phase's documents (see `documentsFor`).
   */
  async floatTargets(name: string, query: QueryVectors): Promise<string[]> {
    const table = await this.table(name);
    if (!table || query.tokens === 0) return [];
    const codes = await this.codesOf(name, table);
    return Array.from(this.floatTargetDocs(codes, query), (doc) => codes.ids[doc]!);
  }

  private floatTargetDocs(codes: CodeCache, query: QueryVectors): Int32Array {
    return this.floatBits(codes, query, this.options.floatRerankLimit, this.documentsFor(codes, query)).docs;
  }

  /**
   * Float MaxSim (Σ over query tokens of the max dot product), computed exactly on the given ids, or on
   * the documents of `floatTargets`, which `onTargets` is told before their float vectors are read. Those
   * are read from the table by row id when the code cache of the table's version is loaded, else through a
   * `document_id` filter.
   */
  async floatMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
    onTargets?: (ids: string[]) => void,
  ): Promise<Scored[]> {
    const table = await this.table(name);
    if (!table || query.tokens === 0 || ids?.length === 0) return [];
    let batches: RecordBatch[] | undefined;
    let codes: CodeCache | undefined;
    let docs: Int32Array | undefined;
    if (ids) {
      codes = await this.loadedCodesOf(name, table);
      docs = codes && this.positionsOf(codes, ids);
      // Ids the cache does not know (written since) leave the filter to find them.
      if (codes && docs && docs.length === ids.length) batches = await readByRowId(table, codes, docs);
      batches ??= await readByFilter(table, ids);
    } else {
      codes = await this.codesOf(name, table);
      docs = this.floatTargetDocs(codes, query);
      if (docs.length === 0) return [];
      const cache = codes;
      const targets = Array.from(docs, (doc) => cache.ids[doc]!);
      onTargets?.(targets);
      batches = (await readByRowId(table, codes, docs)) ?? (await readByFilter(table, targets));
    }
    return top(scoreFloats(batches, query, codes, docs), limit);
  }
}

/**
 * Float MaxSim of every row read. With the codes of the documents read (`docs`), a token vector repeated
 * across them is multiplied with the query once (see `RepeatedFloatMaxSim`).
 */
function scoreFloats(
  batches: RecordBatch[],
  query: QueryVectors,
  codes: CodeCache | undefined,
  docs: Int32Array | undefined,
): Scored[] {
  const distinct = codes?.distinct;
  const hints =
    codes && distinct && docs && query.tokens > 1
      ? {
          of: distinct.of,
          offsets: codes.offsets,
          docOf: new Map(Array.from(docs, (doc) => [codes.ids[doc]!, doc])),
          repeated: new RepeatedFloatMaxSim(query.vectors, query.tokens),
        }
      : undefined;
  const scored: Scored[] = [];
  for (const part of batches) {
    const idColumn = part.getChild('document_id')!;
    const data = part.getChild('embedding')!.data[0]!;
    const offsets = data.valueOffsets as Int32Array;
    const floats = data.children[0]!.children[0]!.values as Float32Array;
    const bits = hints && new Int32Array(floats.buffer, floats.byteOffset, floats.length);
    for (let row = 0; row < part.numRows; row++) {
      const id = String(idColumn.get(row));
      const start = offsets[row]! * TOKEN_DIM;
      const tokens = offsets[row + 1]! - offsets[row]!;
      const doc = hints?.docOf.get(id);
      // The codes hint at repeats only when they have as many tokens as the floats read.
      const score =
        hints && bits && doc !== undefined && hints.offsets[doc + 1]! - hints.offsets[doc]! === tokens
          ? hints.repeated.score(floats, bits, start, tokens, hints.of, hints.offsets[doc]!)
          : floatMaxSim(query.vectors, query.tokens, floats, start, tokens);
      scored.push({ id, score });
    }
  }
  return scored;
}

const FLOAT_COLUMNS = ['document_id', 'embedding'];

/**
 * The float vectors of the documents by their row ids at the cache's version; undefined when the rows read
 * are not those documents (the table was replaced under the same name and version) or the read fails.
 */
async function readByRowId(
  table: Table,
  codes: CodeCache,
  docs: Int32Array,
): Promise<RecordBatch[] | undefined> {
  const rowIds = Array.from(docs, (doc) => codes.rowIds[doc]!);
  let batches: RecordBatch[];
  try {
    batches = (await table.takeRowIds(rowIds).select(FLOAT_COLUMNS).toArrow()).batches;
  } catch {
    return undefined;
  }
  const expected = new Set(Array.from(docs, (doc) => codes.ids[doc]!));
  let rows = 0;
  for (const part of batches) {
    const idColumn = part.getChild('document_id')!;
    for (let row = 0; row < part.numRows; row++)
      if (!expected.has(String(idColumn.get(row)))) return undefined;
    rows += part.numRows;
  }
  return rows === expected.size ? batches : undefined;
}

async function readByFilter(table: Table, ids: readonly string[]): Promise<RecordBatch[]> {
  const result = await table
    .query()
    .where(`document_id IN (${idList(ids)})`)
    .select(FLOAT_COLUMNS)
    .limit(ids.length)
    .toArrow();
  return result.batches;
}

/** Documents by number with their scores, best first. */
interface Ranked {
  docs: Int32Array;
  scores: Float64Array;
}

const scoredOf = (codes: CodeCache, ranked: Ranked): Scored[] =>
  Array.from(ranked.docs, (doc, i) => ({ id: codes.ids[doc]!, score: ranked.scores[i]! }));

/** The `limit` best-scoring documents (all when `docs` is undefined), kept in a min-heap. */
function best(
  codes: CodeCache,
  docs: Int32Array | undefined,
  limit: number,
  /** The score of a document, the `i`th of those scored. */
  score: (doc: number, i: number) => number,
): Ranked {
  const heapScores = new Float64Array(limit);
  const heapDocs = new Int32Array(limit);
  let size = 0;
  const worse = (i: number, j: number) =>
    heapScores[i]! < heapScores[j]! ||
    (heapScores[i] === heapScores[j] && codes.ids[heapDocs[i]!]! > codes.ids[heapDocs[j]!]!);
  const swap = (i: number, j: number) => {
    [heapScores[i], heapScores[j]] = [heapScores[j]!, heapScores[i]!];
    [heapDocs[i], heapDocs[j]] = [heapDocs[j]!, heapDocs[i]!];
  };
  const consider = (doc: number, i: number) => {
    const value = score(doc, i);
    if (size < limit) {
      heapScores[size] = value;
      heapDocs[size] = doc;
      for (let i = size++; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
      return;
    }
    if (value < heapScores[0]! || (value === heapScores[0] && codes.ids[doc]! > codes.ids[heapDocs[0]!]!))
      return;
    heapScores[0] = value;
    heapDocs[0] = doc;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && worse(l, m)) m = l;
      if (r < size && worse(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  };
  if (limit > 0) {
    if (docs) for (let i = 0; i < docs.length; i++) consider(docs[i]!, i);
    else for (let doc = 0; doc < codes.ids.length; doc++) consider(doc, doc);
  }
  // Best first, ties by id (as `top` orders).
  const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => {
    const idA = codes.ids[heapDocs[a]!]!;
    const idB = codes.ids[heapDocs[b]!]!;
    return heapScores[b]! - heapScores[a]! || (idA < idB ? -1 : idA > idB ? 1 : 0);
  });
  return {
    docs: Int32Array.from(order, (i) => heapDocs[i]!),
    scores: Float64Array.from(order, (i) => heapScores[i]!),
  };
}

async function loadCodes(table: Table, version: number): Promise<CodeCache> {
  const result = await table.query().select(['document_id', 'embedding_binary']).withRowId().toArrow();
  const ids: string[] = [];
  const rowIdParts: BigUint64Array[] = [];
  const offsetParts: number[] = [0];
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (const batch of result.batches) {
    const idColumn = batch.getChild('document_id')!;
    rowIdParts.push(batch.getChild('_rowid')!.toArray() as BigUint64Array);
    const data = batch.getChild('embedding_binary')!.data[0]!;
    const offsets = data.valueOffsets as Int32Array;
    const bytes = data.children[0]!.children[0]!.values as Uint8Array;
    const first = offsets[0]!;
    for (let row = 0; row < batch.numRows; row++) {
      ids.push(String(idColumn.get(row)));
      offsetParts.push(total + offsets[row + 1]! - first);
    }
    const count = offsets[batch.numRows]! - first;
    chunks.push(bytes.subarray(first * 16, (first + count) * 16));
    total += count;
  }
  const bytes = new Uint8Array(total * 16);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  const rowIds = new BigUint64Array(ids.length);
  at = 0;
  for (const part of rowIdParts) {
    rowIds.set(part, at);
    at += part.length;
  }
  const words = new Uint32Array(bytes.buffer);
  return {
    version,
    ids,
    offsets: Int32Array.from(offsetParts),
    bytes,
    words,
    distinct: distinctCodes(words, total),
    rowIds,
  };
}

/** The `limit` best, highest score first, ties by id for a stable order. */
export function top(scored: Scored[], limit: number): Scored[] {
  return scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit);
}
