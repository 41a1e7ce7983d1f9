/**
 * What the scoring engine keeps of a table version in memory (every document's packed token codes, their
 * Lance row ids), how it loads them, and how it reads the float vectors of chosen documents.
 */
import type { Table } from '@lancedb/lancedb';
import type { RecordBatch } from 'apache-arrow';
import type { BandIndex } from './candidates';
import { type DistinctCodes, distinctCodes } from './distinct';
import { idList } from './lance-writes';

export interface CodeCache {
  /** The table's identity (name and incarnation, see `LanceDatabase.identity`) and version. */
  table: string;
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

const FLOAT_COLUMNS = ['document_id', 'embedding'];

/**
 * The float vectors of the documents by their row ids at the cache's version; undefined when the rows read
 * are not those documents (the table was replaced under the same name and version) or the read fails.
 */
export async function readByRowId(
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

export async function readByFilter(table: Table, ids: readonly string[]): Promise<RecordBatch[]> {
  const result = await table
    .query()
    .where(`document_id IN (${idList(ids)})`)
    .select(FLOAT_COLUMNS)
    .limit(ids.length)
    .toArrow();
  return result.batches;
}

/** Every document's packed token codes and Lance row id at the table's version, side by side. */
export async function loadCodes(table: Table, identity: string, version: number): Promise<CodeCache> {
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
    table: identity,
    version,
    ids,
    offsets: Int32Array.from(offsetParts),
    bytes,
    words,
    distinct: distinctCodes(words, total),
    rowIds,
  };
}
