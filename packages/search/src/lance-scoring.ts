/**
 * The scoring engine of the LanceDB content index: BM25 through the table's text index, and binary,
 * float·bits and float MaxSim over every document's packed codes, which stay in memory per table version.
 */
import { MatchQuery, MultiMatchQuery, type Table } from '@lancedb/lancedb';
import type { RecordBatch } from 'apache-arrow';
import { bandCandidates, buildBandIndex } from './candidates';
import { type CodeCache, loadCodes, readByFilter, readByRowId } from './code-cache';
import type { LanceDatabase } from './connection';
import { type QueryVectors, type Scored, top } from './content-index';
import { floatBitsScores, RepeatedFloatMaxSim } from './distinct';
import { idList } from './lance-writes';
import { best, type Ranked, scoredOf } from './ranked';
import {
  binaryMaxSim,
  CODE_WORDS,
  codeWords,
  floatBinaryMaxSim,
  floatMaxSim,
  TOKEN_DIM,
  unpackedBitTables,
} from './scoring';

export interface ScoringOptions {
  /** Tables with at most this many documents are scored exhaustively; larger ones through band candidates. */
  exactScanLimit: number;
  /** How many band candidates a first phase scores exactly. */
  candidateLimit: number;
  /** How many documents, best by the float-query·bits score, get their exact float MaxSim. */
  floatRerankLimit: number;
}

const defaults: ScoringOptions = {
  exactScanLimit: 20_000,
  candidateLimit: 2_000,
  floatRerankLimit: 128,
};

export class LanceScoring {
  private readonly codes = new Map<string, Promise<CodeCache>>();
  /** The last code cache of each table whose loading finished. */
  private readonly loadedCodes = new Map<string, CodeCache>();
  /** The unpacked-bit tables of the last float·bits query, whose memory the next one reuses. */
  private tablesScratch: Float32Array | undefined;

  readonly options: ScoringOptions;

  constructor(
    private readonly db: LanceDatabase,
    options: Partial<ScoringOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
  }

  private table(name: string): Promise<Table | undefined> {
    return this.db.openTable(name);
  }

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

  /** Every document's packed token codes, loaded once per table (incarnation) and version. */
  private async codesOf(name: string, table: Table): Promise<CodeCache> {
    const version = await table.version();
    const identity = this.db.identity(table);
    const cached = this.codes.get(name);
    if (cached) {
      const codes = await cached;
      if (codes.version === version && codes.table === identity) return codes;
    }
    const loading = loadCodes(table, identity, version);
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
    return codes && codes.version === (await table.version()) && codes.table === this.db.identity(table)
      ? codes
      : undefined;
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
