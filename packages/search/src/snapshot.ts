/**
 * What the scoring engine keeps of a table in memory: every live document's packed token codes and the
 * terms of its text fields, in segments, kept in step with the table's versions at the cost of what changed.
 *
 * A row's Lance address (fragment << 32 | offset, its `_rowid` in tables without stable row ids) always
 * holds the same row: data files are never changed, an update writes the row anew elsewhere and a delete
 * only hides it. So a new version is read as the difference of its live addresses (one scan of `_rowid`
 * alone, ~15 ms for 100,000 rows) with the snapshot's: rows at new addresses are read by address into a new
 * segment, rows whose address is gone are marked dead. Segments are merged in memory as they accumulate
 * (the newest two whenever the newer holds at least half as many live documents as the older one, so each
 * document is copied about log2(n) times), and a compaction, which moves every row, is read as a new table.
 */
import type { Table } from '@lancedb/lancedb';
import type { RecordBatch } from 'apache-arrow';
import type { BandIndex } from './candidates';
import { type CodeCache, codesOf, mergeCodes } from './code-cache';
import {
  type Analyzer,
  buildField,
  type FieldPostings,
  FieldStats,
  mergeFields,
  type TextScratch,
  Vocabulary,
} from './text-index';

export interface Segment {
  /** Numbers the segments of a snapshot. */
  serial: number;
  codes: CodeCache;
  /** Row address of each document. */
  addresses: Float64Array;
  /** 1 while the document is live. */
  live: Uint8Array;
  liveCount: number;
  /** Live document numbers, rebuilt when one dies. */
  liveDocs?: Int32Array;
  /** Postings of each text field loaded. */
  text: Map<string, FieldPostings>;
  /** Built on first use: document number by id (live ones), the band index. */
  positions?: Map<string, number>;
  bands?: BandIndex;
  /** The arrays text queries of this segment score into. */
  textScratch?: TextScratch;
}

export class TableSnapshot {
  version = -1;
  /** The table's identity (name and incarnation, see `LanceDatabase.identity`) the snapshot was read from. */
  table = '';
  segments: Segment[] = [];
  readonly vocabulary = new Vocabulary();
  readonly stats = new Map<string, FieldStats>();
  /** Address → segment serial · 2^24 + document. */
  readonly where = new Map<number, number>();
  private serials = 0;

  constructor(readonly textFields: readonly string[]) {
    for (const field of textFields) this.stats.set(field, new FieldStats());
  }

  get liveCount(): number {
    return this.segments.reduce((sum, segment) => sum + segment.liveCount, 0);
  }

  nextSerial(): number {
    return ++this.serials;
  }

  /** Adds a segment's documents (all live) to the snapshot. */
  add(segment: Segment): void {
    this.segments.push(segment);
    for (let doc = 0; doc < segment.addresses.length; doc++) {
      this.where.set(segment.addresses[doc]!, segment.serial * 2 ** 24 + doc);
      for (const [field, postings] of segment.text) this.stats.get(field)!.apply(postings, doc, 1);
    }
  }

  /** Marks the document at the address dead. */
  remove(address: number): void {
    const at = this.where.get(address);
    if (at === undefined) return;
    this.where.delete(address);
    const serial = Math.floor(at / 2 ** 24);
    const doc = at % 2 ** 24;
    const segment = this.segments.find((s) => s.serial === serial);
    if (!segment) return;
    if (!segment.live[doc]) return;
    segment.live[doc] = 0;
    segment.liveCount--;
    segment.liveDocs = undefined;
    segment.positions = undefined;
    for (const [field, postings] of segment.text) this.stats.get(field)!.apply(postings, doc, -1);
  }

  /** Merges the newest segments while the newer holds at least half as many live documents as the older. */
  compact(): void {
    for (;;) {
      const n = this.segments.length;
      if (n < 2) return;
      const older = this.segments[n - 2]!;
      const newer = this.segments[n - 1]!;
      if (newer.liveCount * 2 < older.liveCount && older.liveCount * 2 >= older.addresses.length) return;
      const merged = mergeSegments(this.nextSerial(), [older, newer]);
      this.segments.splice(n - 2, 2, merged);
      for (let doc = 0; doc < merged.addresses.length; doc++)
        this.where.set(merged.addresses[doc]!, merged.serial * 2 ** 24 + doc);
    }
  }
}

/** Live document numbers of a segment. */
export function liveDocs(segment: Segment): Int32Array {
  if (!segment.liveDocs) {
    const docs = new Int32Array(segment.liveCount);
    let at = 0;
    for (let doc = 0; doc < segment.live.length; doc++) if (segment.live[doc]) docs[at++] = doc;
    segment.liveDocs = docs;
  }
  return segment.liveDocs;
}

function mergeSegments(serial: number, segments: Segment[]): Segment {
  const parts = segments.map((segment) => ({ segment, docs: liveDocs(segment) }));
  const codes = mergeCodes(parts.map(({ segment, docs }) => ({ codes: segment.codes, docs })));
  const addresses = new Float64Array(codes.ids.length);
  let at = 0;
  for (const { segment, docs } of parts) for (const doc of docs) addresses[at++] = segment.addresses[doc]!;
  const text = new Map<string, FieldPostings>();
  for (const field of segments[0]!.text.keys()) {
    text.set(
      field,
      mergeFields(parts.map(({ segment, docs }) => ({ field: segment.text.get(field)!, docs }))),
    );
  }
  return {
    serial,
    codes,
    addresses,
    live: new Uint8Array(addresses.length).fill(1),
    liveCount: addresses.length,
    text,
  };
}

/** Rows read per take by address. */
const TAKE = 4096;

export class Snapshots {
  private readonly tables = new Map<string, TableSnapshot>();
  private readonly refreshing = new Map<string, Promise<TableSnapshot>>();
  /** Milliseconds of the latest refreshes (at most 1,000), whole reads marked `whole`. */
  readonly refreshes: { ms: number; whole: boolean; fresh: number }[] = [];

  /**
   * `identify` names a table's incarnation: a table dropped and created again under its name counts its
   * versions and row addresses from the start again, so nothing read of the one before is reused.
   */
  constructor(
    private readonly analyzer: Analyzer,
    private readonly identify: (table: Table) => string,
  ) {}

  /** The snapshot of the table handle's version, if one was made already (never reads the table). */
  async loaded(name: string, table: Table): Promise<TableSnapshot | undefined> {
    const snapshot = this.tables.get(name);
    return snapshot && snapshot.version === (await table.version()) && snapshot.table === this.identify(table)
      ? snapshot
      : undefined;
  }

  /** Whether a snapshot of the table exists, of whatever version. */
  has(name: string): boolean {
    return this.tables.has(name);
  }

  forget(name: string): void {
    this.tables.delete(name);
  }

  /** The snapshot of the table handle's version, holding at least the given text fields. */
  async of(name: string, table: Table, textFields: readonly string[] = []): Promise<TableSnapshot> {
    for (;;) {
      const version = await table.version();
      const current = this.tables.get(name);
      if (
        current &&
        current.version === version &&
        current.table === this.identify(table) &&
        textFields.every((f) => current.textFields.includes(f))
      )
        return current;
      const running = this.refreshing.get(name);
      if (running) {
        await running.catch(() => undefined);
        continue;
      }
      const started = performance.now();
      const kind = { whole: false, fresh: 0 };
      const refresh = this.refresh(name, table, version, textFields, kind).finally(() => {
        this.refreshing.delete(name);
        this.refreshes.push({ ms: performance.now() - started, ...kind });
        if (this.refreshes.length > 1000) this.refreshes.shift();
      });
      this.refreshing.set(name, refresh);
      return refresh;
    }
  }

  private async refresh(
    name: string,
    table: Table,
    version: number,
    textFields: readonly string[],
    kind: { whole: boolean; fresh: number },
  ): Promise<TableSnapshot> {
    const identity = this.identify(table);
    const same = this.tables.get(name);
    const previous = same?.table === identity ? same : undefined;
    const fields = [...new Set([...(previous?.textFields ?? []), ...textFields])];
    const reusable = previous && previous.version <= version && fields.length === previous.textFields.length;
    const live = await liveAddresses(table);
    const fresh: number[] = [];
    let kept = 0;
    if (reusable) {
      for (const address of live) {
        if (previous.where.has(address)) kept++;
        else fresh.push(address);
      }
    }
    // A new table, other text fields, or mostly new rows (a compaction moves them all): read it whole.
    kind.fresh = fresh.length;
    if (!reusable || fresh.length > Math.max(1024, live.length / 2)) {
      kind.whole = true;
      const snapshot = new TableSnapshot(fields);
      const batches = (
        await table
          .query()
          .select(await columnsOf(table, fields))
          .withRowId()
          .toArrow()
      ).batches;
      snapshot.add(await this.segmentOf(snapshot, batches, fields));
      snapshot.version = version;
      snapshot.table = identity;
      this.tables.set(name, snapshot);
      return snapshot;
    }
    let segment: Segment | undefined;
    if (fresh.length > 0) {
      const columns = await columnsOf(table, fields);
      const batches: RecordBatch[] = [];
      for (let start = 0; start < fresh.length; start += TAKE) {
        const addresses = fresh.slice(start, start + TAKE).map((address) => BigInt(address));
        batches.push(...(await table.takeRowIds(addresses).select(columns).withRowId().toArrow()).batches);
      }
      segment = await this.segmentOf(previous, batches, fields);
    }
    // Every change at once, with no wait in between: a query never sees half of a version.
    if (kept < previous.where.size) {
      const alive = new Set(live);
      for (const address of [...previous.where.keys()]) if (!alive.has(address)) previous.remove(address);
    }
    if (segment) previous.add(segment);
    previous.compact();
    previous.version = version;
    return previous;
  }

  private async segmentOf(
    snapshot: TableSnapshot,
    batches: RecordBatch[],
    fields: string[],
  ): Promise<Segment> {
    const codes = codesOf(batches);
    const addresses = Float64Array.from(codes.rowIds, (id) => Number(id));
    const text = new Map<string, FieldPostings>();
    for (const field of fields) {
      const values: (string | undefined)[] = [];
      for (const batch of batches) {
        const column = batch.getChild(field);
        for (let row = 0; row < batch.numRows; row++) {
          const value = column?.get(row);
          values.push(typeof value === 'string' ? value : undefined);
        }
      }
      text.set(field, buildField(snapshot.vocabulary, await this.analyzer.analyze(values)));
    }
    return {
      serial: snapshot.nextSerial(),
      codes,
      addresses,
      live: new Uint8Array(addresses.length).fill(1),
      liveCount: addresses.length,
      text,
    };
  }
}

/** The columns a snapshot reads that the table has. */
async function columnsOf(table: Table, fields: readonly string[]): Promise<string[]> {
  const names = new Set((await table.schema()).fields.map((field) => field.name));
  return ['document_id', 'embedding_binary', ...fields].filter((name) => names.has(name));
}

/** Every live row's address at the handle's version. */
async function liveAddresses(table: Table): Promise<Float64Array> {
  const result = await table.query().select([]).withRowId().toArrow();
  const out = new Float64Array(result.numRows);
  let at = 0;
  for (const batch of result.batches) {
    const ids = batch.getChild('_rowid')!.toArray() as BigUint64Array;
    for (let i = 0; i < ids.length; i++) out[at++] = Number(ids[i]!);
  }
  return out;
}
