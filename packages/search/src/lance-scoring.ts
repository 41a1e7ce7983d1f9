/**
 * The scoring engine of the LanceDB content index: BM25 and binary, float·bits and float MaxSim over a
 * snapshot of the table's live documents (their codes and text terms in memory, see snapshot.ts), and
 * exact float MaxSim over the float vectors of chosen documents, read from the table by row address.
 */
import type { Table } from '@lancedb/lancedb';
import type { RecordBatch } from 'apache-arrow';
import { bandCandidates, buildBandIndex } from './candidates';
import { readByFilter, readByRowId } from './code-cache';
import type { LanceDatabase } from './connection';
import { type QueryVectors, type Scored, top } from './content-index';
import { floatBitsScores, RepeatedFloatMaxSim } from './distinct';
import { best, type Ranked, scoredOf } from './ranked';
import {
  binaryMaxSim,
  CODE_WORDS,
  codeWords,
  floatBinaryMaxSim,
  floatMaxSim,
  queryTokenWeights,
  TOKEN_DIM,
  unpackedBitTables,
} from './scoring';
import { liveDocs, type Segment, Snapshots, type TableSnapshot } from './snapshot';
import { Analyzer, queryWeights, TextScratch } from './text-index';

export interface ScoringOptions {
  /** Tables with at most this many documents are scored exhaustively; larger ones through band candidates. */
  exactScanLimit: number;
  /** How many band candidates a first phase scores exactly (shared among segments by their size). */
  candidateLimit: number;
  /** How many documents, best by the float-query·bits score, get their exact float MaxSim. */
  floatRerankLimit: number;
  /** Segments with at most this many live documents are scanned exhaustively, whatever the table's size. */
  segmentScanLimit: number;
}

const defaults: ScoringOptions = {
  exactScanLimit: 4_096,
  candidateLimit: 2_000,
  floatRerankLimit: 128,
  segmentScanLimit: 2_048,
};

/** A segment's documents with their scores, best first. */
type SegmentRanked = { segment: Segment; ranked: Ranked };

export class LanceScoring {
  private readonly snapshots: Snapshots;
  private readonly analyzer: Analyzer;
  /** The unpacked-bit tables of the last float·bits query, whose memory the next one reuses. */
  private tablesScratch: Float32Array | undefined;

  readonly options: ScoringOptions;

  constructor(
    private readonly db: LanceDatabase,
    options: Partial<ScoringOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
    this.analyzer = new Analyzer();
    this.snapshots = new Snapshots(this.analyzer, (table) => this.db.identity(table));
  }

  private table(name: string): Promise<Table | undefined> {
    return this.db.openTable(name);
  }

  /** How long the latest snapshot refreshes took (diagnostics for benchmarks). */
  get refreshes(): readonly { ms: number; whole: boolean; fresh: number }[] {
    return this.snapshots.refreshes;
  }

  /** The snapshot of the table's latest version (read on first use, then kept in step). */
  async snapshot(name: string, textFields: readonly string[] = []): Promise<TableSnapshot | undefined> {
    const table = await this.table(name);
    return table && this.snapshots.of(name, table, textFields);
  }

  /**
   * BM25 over the given text fields (each field scored on its own, a document taking its best field);
   * restricted to `ids` when given.
   */
  async bm25(
    name: string,
    fields: string[],
    text: string,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    if (text.trim() === '' || fields.length === 0 || ids?.length === 0) return [];
    const table = await this.table(name);
    if (!table) return [];
    const [snapshot, [terms]] = await Promise.all([
      this.snapshots.of(name, table, fields),
      this.analyzer.analyze([text]),
    ]);
    if (!terms || terms.length === 0) return [];
    const weights = fields.map((field) =>
      queryWeights(snapshot.vocabulary, snapshot.stats.get(field)!, terms),
    );
    const scored: Scored[] = [];
    for (const segment of snapshot.segments) {
      const only = ids ? positionsOf(segment, ids) : undefined;
      if (only?.length === 0) continue;
      segment.textScratch ??= new TextScratch(segment.addresses.length);
      const scratch = segment.textScratch;
      fields.forEach((field, f) => {
        scratch.scoreField(
          segment.text.get(field)!,
          snapshot.stats.get(field)!,
          weights[f]!,
          segment.live,
          only,
        );
      });
      scratch.drain((doc, score) => scored.push({ id: segment.codes.ids[doc]!, score }));
    }
    return top(scored, ids ? ids.length : limit);
  }

  /**
   * The documents of a segment a first phase scores: the given ids; every live document of a table up to
   * `exactScanLimit` or of a small segment; else the segment's band-index candidates of the query, as many
   * as its share of the table's documents.
   */
  private documentsFor(
    snapshot: TableSnapshot,
    segment: Segment,
    query: QueryVectors,
    ids?: readonly string[],
  ): Int32Array {
    if (ids) return positionsOf(segment, ids);
    const total = snapshot.liveCount;
    if (total <= this.options.exactScanLimit || segment.liveCount <= this.options.segmentScanLimit)
      return liveDocs(segment);
    const { codes } = segment;
    segment.bands ??= buildBandIndex(codes.words, codes.offsets, codes.ids.length);
    const share = Math.ceil((this.options.candidateLimit * segment.liveCount) / total);
    const candidates = bandCandidates(segment.bands, codeWords(query.binary), query.tokens, share);
    return segment.liveCount === segment.addresses.length
      ? candidates
      : candidates.filter((doc) => segment.live[doc] === 1);
  }

  /** Binary MaxSim (per query token `1 - 2h/128`, max over document tokens, mean over query tokens). */
  async binaryMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    if (query.tokens === 0 || ids?.length === 0) return [];
    const snapshot = await this.snapshot(name);
    if (!snapshot) return [];
    const q = codeWords(query.binary);
    const weights = queryTokenWeights(query.vectors, query.tokens);
    const scored: Scored[] = [];
    for (const segment of snapshot.segments) {
      const { offsets, words } = segment.codes;
      const ranked = best(segment.codes, this.documentsFor(snapshot, segment, query, ids), limit, (doc) =>
        binaryMaxSim(
          q,
          query.tokens,
          words,
          offsets[doc]! * CODE_WORDS,
          offsets[doc + 1]! - offsets[doc]!,
          weights,
        ),
      );
      scored.push(...scoredOf(segment.codes, ranked));
    }
    return top(scored, limit);
  }

  /** Float query against the unpacked (0/1) bits of the document tokens, max over tokens, summed. */
  async floatBinaryMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]> {
    if (query.tokens === 0 || ids?.length === 0) return [];
    const snapshot = await this.snapshot(name);
    if (!snapshot) return [];
    const scored: Scored[] = [];
    for (const { segment, ranked } of this.floatBits(snapshot, query, limit, ids))
      scored.push(...scoredOf(segment.codes, ranked));
    return top(scored, limit);
  }

  private floatBits(
    snapshot: TableSnapshot,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): SegmentRanked[] {
    const tables = unpackedBitTables(query.vectors, query.tokens, this.tablesScratch);
    this.tablesScratch = tables;
    return snapshot.segments.map((segment) => {
      const docs = this.documentsFor(snapshot, segment, query, ids);
      const { offsets, bytes, distinct } = segment.codes;
      if (distinct) {
        const scores = floatBitsScores(
          distinct,
          tables,
          query.tokens,
          offsets,
          docs,
          segment.codes.ids.length,
        );
        return { segment, ranked: best(segment.codes, docs, limit, (_, i) => scores[i]!) };
      }
      return {
        segment,
        ranked: best(segment.codes, docs, limit, (doc) =>
          floatBinaryMaxSim(
            tables,
            query.tokens,
            bytes,
            offsets[doc]! * 16,
            offsets[doc + 1]! - offsets[doc]!,
          ),
        ),
      };
    });
  }

  /**
   * The documents float MaxSim scores exactly when given no ids: the `floatRerankLimit` that the
   * float-query·bits score ranks best among a first phase's documents, by segment.
   */
  private floatTargetDocs(snapshot: TableSnapshot, query: QueryVectors): Map<Segment, number[]> {
    const limit = this.options.floatRerankLimit;
    const all: { segment: Segment; doc: number; score: number; id: string }[] = [];
    for (const { segment, ranked } of this.floatBits(snapshot, query, limit)) {
      ranked.docs.forEach((doc, i) => {
        all.push({ segment, doc, score: ranked.scores[i]!, id: segment.codes.ids[doc]! });
      });
    }
    all.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const targets = new Map<Segment, number[]>();
    for (const { segment, doc } of all.slice(0, limit)) {
      const docs = targets.get(segment) ?? [];
      docs.push(doc);
      targets.set(segment, docs);
    }
    return targets;
  }

  /** The documents float MaxSim scores exactly when given no ids (see `floatTargetDocs`). */
  async floatTargets(name: string, query: QueryVectors): Promise<string[]> {
    if (query.tokens === 0) return [];
    const snapshot = await this.snapshot(name);
    if (!snapshot) return [];
    return [...this.floatTargetDocs(snapshot, query)].flatMap(([segment, docs]) =>
      docs.map((doc) => segment.codes.ids[doc]!),
    );
  }

  /**
   * Float MaxSim (Σ over query tokens of the max dot product), computed exactly on the given ids, or on
   * the documents of `floatTargets`, which `onTargets` is told before their float vectors are read. Those
   * are read from the table by row address when a snapshot of the table's version exists (one is made for
   * the targets), else through a `document_id` filter.
   */
  async floatMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
    onTargets?: (ids: string[]) => void,
  ): Promise<Scored[]> {
    if (query.tokens === 0 || ids?.length === 0) return [];
    const table = await this.table(name);
    if (!table) return [];
    let parts: { segment?: Segment; docs?: Int32Array; batches: RecordBatch[] }[];
    if (ids) {
      // A second phase: the snapshot is brought up to date only if one exists (a cold one is not loaded).
      const snapshot = this.snapshots.has(name) ? await this.snapshots.of(name, table) : undefined;
      const found = snapshot?.segments.map((segment) => ({ segment, docs: positionsOf(segment, ids) }));
      const known = found?.reduce((sum, part) => sum + part.docs.length, 0);
      parts = [];
      if (found && known === new Set(ids).size) {
        for (const { segment, docs } of found) {
          if (docs.length === 0) continue;
          const batches = await readByRowId(table, segment.codes, docs);
          if (!batches) {
            parts = [];
            break;
          }
          parts.push({ segment, docs, batches });
        }
      }
      if (parts.length === 0) parts = [{ batches: await readByFilter(table, ids) }];
    } else {
      const snapshot = await this.snapshots.of(name, table);
      const targets = this.floatTargetDocs(snapshot, query);
      if (targets.size === 0) return [];
      onTargets?.([...targets].flatMap(([segment, docs]) => docs.map((doc) => segment.codes.ids[doc]!)));
      parts = [];
      for (const [segment, list] of targets) {
        const docs = Int32Array.from(list);
        const batches =
          (await readByRowId(table, segment.codes, docs)) ??
          (await readByFilter(
            table,
            list.map((doc) => segment.codes.ids[doc]!),
          ));
        parts.push({ segment, docs, batches });
      }
    }
    return top(
      parts.flatMap(({ segment, docs, batches }) => scoreFloats(batches, query, segment, docs)),
      limit,
    );
  }
}

/** Live document numbers of the ids that the segment holds, in the order given. */
function positionsOf(segment: Segment, ids: readonly string[]): Int32Array {
  if (!segment.positions) {
    const positions = new Map<string, number>();
    segment.codes.ids.forEach((id, doc) => {
      if (segment.live[doc]) positions.set(id, doc);
    });
    segment.positions = positions;
  }
  const positions = segment.positions;
  const docs: number[] = [];
  for (const id of ids) {
    const doc = positions.get(id);
    if (doc !== undefined && segment.live[doc]) docs.push(doc);
  }
  return Int32Array.from(docs);
}

/**
 * Float MaxSim of every row read. With the segment of the documents read, a token vector repeated across
 * them is multiplied with the query once (see `RepeatedFloatMaxSim`).
 */
function scoreFloats(
  batches: RecordBatch[],
  query: QueryVectors,
  segment: Segment | undefined,
  docs: Int32Array | undefined,
): Scored[] {
  const codes = segment?.codes;
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
