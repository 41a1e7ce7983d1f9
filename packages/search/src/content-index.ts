/**
 * The content index port: what content indexing and search need from the store of a tenant's documents.
 * Tables are tenant schemas deployed by the search backend; writing to one not deployed fails, reading one
 * answers nothing. The scoring phases are the primitives the ranking strategies are made of.
 */
import type { DocumentRow } from './rows';
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

export interface ContentIndex {
  /** Readies a table for its first writes from this process (its text and key indexes). */
  ensureIndexes(name: string, template: SchemaTemplate): Promise<void>;
  /** Upserts documents by `document_id`. */
  upsert(name: string, template: SchemaTemplate, rows: DocumentRow[]): Promise<void>;
  /**
   * Sets the named fields of documents already stored, in one commit, leaving their other fields (and
   * vectors) as they are; ids not in the table are ignored.
   */
  patch(name: string, template: SchemaTemplate, fields: string[], rows: DocumentRow[]): Promise<void>;
  /**
   * Replaces every document of the named sources in one commit: the rows given are written, and what those
   * sources held before and is not among them is deleted. Many small files cost one write, not one each.
   */
  replaceSources(
    name: string,
    template: SchemaTemplate,
    sourceDocIds: string[],
    rows: DocumentRow[],
  ): Promise<void>;
  /** Removes the documents of a source written before `generation` (their `ingested_at`). */
  deleteOlderGeneration(name: string, sourceDocId: string, generation: number): Promise<void>;
  /**
   * Notes that the table was written: its upkeep (compaction, index updates, removal of old versions)
   * follows when due, off the request path. True when it ran before answering (never in LanceDB's adapter).
   */
  maintain(name: string): Promise<boolean>;
  /** Documents of the table (0 when it is not deployed), or of one source. */
  count(name: string, where?: { sourceDocId?: string }): Promise<number>;
  /**
   * The fingerprint of the encoder whose vectors the table holds (`MultiVectorEncoder.fingerprint`), as
   * recorded with the table; undefined when none is recorded (an empty table, or one made before records).
   */
  encoderOf(name: string): Promise<string | undefined>;
  /** Records the encoder of the table's vectors. */
  recordEncoder(name: string, fingerprint: string): Promise<void>;
  /** Up to `limit` rows of the table, with the requested columns. */
  sample(name: string, limit: number, columns: string[]): Promise<Record<string, unknown>[]>;
  /** Rows by id, with the requested columns. */
  fetch(name: string, ids: readonly string[], columns: string[]): Promise<Record<string, unknown>[]>;

  /** BM25 over the given text fields (scores summed across fields); restricted to `ids` when given. */
  bm25(
    name: string,
    fields: string[],
    text: string,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]>;
  /** Binary MaxSim (per query token `1 - 2h/128`, max over document tokens, mean over query tokens). */
  binaryMaxSim(name: string, query: QueryVectors, limit: number, ids?: readonly string[]): Promise<Scored[]>;
  /** Float query against the unpacked (0/1) bits of the document tokens, max over tokens, summed. */
  floatBinaryMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
  ): Promise<Scored[]>;
  /**
   * Float MaxSim (Σ over query tokens of the max dot product) on the given ids, or, given none, on the
   * documents the index picks for a first phase, which `onTargets` is told before they are scored.
   */
  floatMaxSim(
    name: string,
    query: QueryVectors,
    limit: number,
    ids?: readonly string[],
    onTargets?: (ids: string[]) => void,
  ): Promise<Scored[]>;
}

/** SQL string literal for LanceDB filters: quotes doubled. */
export const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** The `limit` best, highest score first, ties by id for a stable order. */
export function top(scored: Scored[], limit: number): Scored[] {
  return scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit);
}
