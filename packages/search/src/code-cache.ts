/**
 * The packed token codes of a set of documents side by side (a segment of a table snapshot) with their
 * Lance row ids, how they are built from the rows read, and how the float vectors of chosen documents are read.
 */
import type { Table } from '@lancedb/lancedb';
import type { RecordBatch } from 'apache-arrow';
import type { BandIndex } from './candidates';
import { type DistinctCodes, distinctCodes } from './distinct';
import { idList } from './lance-writes';

export interface CodeCache {
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

/** The packed token codes and row ids of the rows read (`document_id`, `embedding_binary`, `_rowid`), side by side. */
export function codesOf(batches: readonly RecordBatch[]): CodeCache {
  const ids: string[] = [];
  const rowIdParts: BigUint64Array[] = [];
  const offsetParts: number[] = [0];
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (const batch of batches) {
    const idColumn = batch.getChild('document_id')!;
    rowIdParts.push(batch.getChild('_rowid')!.toArray() as BigUint64Array);
    const data = batch.getChild('embedding_binary')?.data[0];
    if (!data) {
      for (let row = 0; row < batch.numRows; row++) {
        ids.push(String(idColumn.get(row)));
        offsetParts.push(total);
      }
      continue;
    }
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
  return codesFrom(ids, Int32Array.from(offsetParts), bytes, rowIds);
}

function codesFrom(ids: string[], offsets: Int32Array, bytes: Uint8Array, rowIds: BigUint64Array): CodeCache {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  return { ids, offsets, bytes, words, distinct: distinctCodes(words, bytes.length / 16), rowIds };
}

/** The codes of the given documents of several code sets, in order, as one. */
export function mergeCodes(parts: { codes: CodeCache; docs: Int32Array }[]): CodeCache {
  const ids: string[] = [];
  let documents = 0;
  let tokens = 0;
  for (const { codes, docs } of parts) {
    documents += docs.length;
    for (const doc of docs) tokens += codes.offsets[doc + 1]! - codes.offsets[doc]!;
  }
  const offsets = new Int32Array(documents + 1);
  const bytes = new Uint8Array(tokens * 16);
  const rowIds = new BigUint64Array(documents);
  let out = 0;
  let at = 0;
  for (const { codes, docs } of parts) {
    for (const doc of docs) {
      ids.push(codes.ids[doc]!);
      rowIds[out] = codes.rowIds[doc]!;
      const start = codes.offsets[doc]!;
      const end = codes.offsets[doc + 1]!;
      bytes.set(codes.bytes.subarray(start * 16, end * 16), at * 16);
      at += end - start;
      offsets[++out] = at;
    }
  }
  return codesFrom(ids, offsets, bytes, rowIds);
}
