/**
 * The LanceDB adapter of the memory store: a tenant's memories are rows of its `agent_memories_<suffix>`
 * table (content, agent, time, the content's token vectors and their sign bits, and the encoder that made
 * them), read into a `MemoryIndex` once per table identity (name and incarnation), where recall scores
 * them. A write of this process is applied to the index it read; another process's moves the version, and
 * only the rows added since are read (by row id), unless rows were deleted, when the table is read again.
 */
import type { Table } from '@lancedb/lancedb';
import { KeyedSerializer } from '@tessera/core';
import type { MultiVectorEncoder } from '@tessera/encoders';
import {
  type DocumentRow,
  documentTable,
  type LanceDatabase,
  lanceMaintenance,
  type SchemaTemplate,
  sqlString,
} from '@tessera/search';
import { type IndexedMemory, indexed, MemoryIndex, type RecallScoring } from './memory-index';
import type { Memory, RecalledMemory } from './model';
import type { MemoryStore } from './store';

const COLUMNS = ['document_id', 'agent_name', 'content', 'created_at', 'metadata'];

export class LanceMemoryStore implements MemoryStore {
  private readonly indexes = new Map<string, { table: string; index: Promise<MemoryIndex> }>();
  /** What this store read of its tables: whole reads, reads of the rows added since, and rows read. */
  readonly reads = { whole: 0, since: 0, rows: 0 };
  /** Writes and deletes of one tenant go one at a time; other tenants' go on. */
  private readonly writes = new KeyedSerializer();

  constructor(
    readonly db: LanceDatabase,
    private readonly template: SchemaTemplate,
    private readonly encoder: MultiVectorEncoder,
    private readonly scoring: RecallScoring = 'hybrid',
  ) {}

  private async index(schema: string): Promise<{ table?: Table; index: MemoryIndex }> {
    const table = await this.db.openTable(schema);
    if (!table) {
      this.indexes.delete(schema);
      return { index: new MemoryIndex(-1) };
    }
    return { table, index: await this.indexOf(schema, table) };
  }

  private async indexOf(schema: string, table: Table): Promise<MemoryIndex> {
    const version = await table.version();
    const identity = this.db.identity(table);
    const cached = this.indexes.get(schema);
    let loading: Promise<MemoryIndex>;
    if (cached?.table === identity) {
      const index = await cached.index.catch(() => undefined);
      if (index && index.version >= version) return index;
      // Another caller began reading a newer version meanwhile: share what it reads.
      if (this.indexes.get(schema) !== cached) return this.indexOf(schema, table);
      loading = index ? this.catchUp(table, index, version) : this.load(table, version);
    } else {
      loading = this.load(table, version);
    }
    const entry = { table: identity, index: loading };
    this.indexes.set(schema, entry);
    loading.catch(() => {
      if (this.indexes.get(schema) === entry) this.indexes.delete(schema);
    });
    return loading;
  }

  /** Every memory of a table version; rows another encoder embedded are embedded again, in memory only. */
  private async load(table: Table, version: number): Promise<MemoryIndex> {
    const index = new MemoryIndex(version);
    const { memories, watermark } = await this.read(table);
    for (const memory of memories) index.add(memory);
    index.rowWatermark = watermark;
    return index;
  }

  /**
   * The index brought to `version` by reading only the rows added since it was read: a table that moved by
   * appends (another process's memories) has them in fragments of higher row ids than any read before. A
   * compaction rewrites known rows under new ids too, which are skipped. A delete is seen in the count: when
   * the memories known and the rows read do not make up the table's rows, the table is read whole.
   */
  private async catchUp(table: Table, index: MemoryIndex, version: number): Promise<MemoryIndex> {
    const { memories, watermark } = await this.read(table, index.rowWatermark);
    const fresh = memories.filter((memory) => !index.has(memory.memory_id));
    if (index.size + fresh.length !== (await table.countRows())) return this.load(table, version);
    for (const memory of fresh) index.add(memory);
    if (watermark !== undefined) index.rowWatermark = watermark;
    index.version = Math.max(index.version, version);
    return index;
  }

  /** The rows of the table (those after row id `after`, when given), embedded, and the highest row id read. */
  private async read(
    table: Table,
    after?: bigint,
  ): Promise<{ memories: IndexedMemory[]; watermark: bigint | undefined }> {
    let query = table
      .query()
      .withRowId()
      .select([...COLUMNS, 'embedding_binary']);
    if (after !== undefined) query = query.where(`_rowid > ${after}`);
    const result = await query.toArrow();
    if (after === undefined) this.reads.whole++;
    else this.reads.since++;
    this.reads.rows += result.numRows;
    const memories: IndexedMemory[] = [];
    const stale: Memory[] = [];
    let watermark = after;
    for (const batch of result.batches) {
      const [ids, agents, contents, times, metadata] = COLUMNS.map((name) => batch.getChild(name)!);
      const rowIds = batch.getChild('_rowid')!;
      const binary = batch.getChild('embedding_binary')!.data[0]!;
      const offsets = binary.valueOffsets as Int32Array;
      const bytes = binary.children[0]!.children[0]!.values as Uint8Array;
      for (let row = 0; row < batch.numRows; row++) {
        const rowId = BigInt(rowIds.get(row));
        if (watermark === undefined || rowId > watermark) watermark = rowId;
        const memory: Memory = {
          memory_id: String(ids!.get(row)),
          agent_name: String(agents!.get(row) ?? ''),
          content: String(contents!.get(row) ?? ''),
          created_at: Number(times!.get(row) ?? 0),
        };
        if (encoderOf(metadata!.get(row)) !== this.encoder.fingerprint) {
          stale.push(memory);
          continue;
        }
        const start = offsets[row]!;
        const tokens = offsets[row + 1]! - start;
        memories.push(indexed(memory, { tokens, binary: bytes.subarray(start * 16, (start + tokens) * 16) }));
      }
    }
    memories.push(...(await this.embed(stale)));
    return { memories, watermark };
  }

  private async embed(memories: readonly Memory[]): Promise<(IndexedMemory & { vectors: Float32Array })[]> {
    if (memories.length === 0) return [];
    const vectors = await this.encoder.encode(
      memories.map((memory) => memory.content),
      'document',
    );
    return memories.map((memory, i) => ({ ...indexed(memory, vectors[i]!), vectors: vectors[i]!.vectors }));
  }

  add(schema: string, memories: readonly Memory[]): Promise<void> {
    return this.writes.run(schema, async () => {
      const { table, index } = await this.index(schema);
      if (!table) throw new Error(`Memory schema ${schema} is not deployed`);
      // A memory stored already (a run's memory written again) is kept as it is.
      const unseen = new Map<string, Memory>();
      for (const memory of memories) if (!index.has(memory.memory_id)) unseen.set(memory.memory_id, memory);
      if (unseen.size === 0) return;
      const embedded = await this.embed([...unseen.values()]);
      const metadata = JSON.stringify({ encoder: this.encoder.fingerprint });
      const rows: DocumentRow[] = embedded.map((memory) => ({
        document_id: memory.memory_id,
        agent_name: memory.agent_name,
        content: memory.content,
        created_at: memory.created_at,
        metadata,
        embedding: { tokens: memory.tokens, values: memory.vectors },
        embedding_binary: {
          tokens: memory.tokens,
          values: new Uint8Array(memory.codes.buffer, memory.codes.byteOffset, memory.codes.byteLength),
        },
      }));
      // Keyed on the id: a writer in another process that stored one of them meanwhile keeps its row.
      await table
        .mergeInsert('document_id')
        .whenNotMatchedInsertAll()
        .execute(documentTable(this.template, rows) as never);
      lanceMaintenance(this.db).touch(schema);
      this.settle(index, await table.version(), () => {
        for (const memory of embedded) {
          const { vectors: _, ...kept } = memory;
          index.add(kept);
        }
      });
    });
  }

  /**
   * Applies our own commit to the index read before it. One that moved further means another writer too:
   * the index is left at its version, and the next read catches up with both commits (reading the rows
   * added since, or the whole table when rows went).
   */
  private settle(index: MemoryIndex, version: number, apply: () => void): void {
    if (version !== index.version + 1) return;
    apply();
    index.version = version;
  }

  async list(schema: string, agentName?: string): Promise<Memory[]> {
    return (await this.index(schema)).index.list(agentName);
  }

  async recall(schema: string, agentName: string, query: string, limit: number): Promise<RecalledMemory[]> {
    const { index } = await this.index(schema);
    if (index.count(agentName) === 0) return [];
    const [vectors] = await this.encoder.encode([query], 'query');
    return index.recall(agentName, query, vectors!, limit, this.scoring);
  }

  delete(schema: string, agentName?: string): Promise<number> {
    return this.writes.run(schema, async () => {
      const { table, index } = await this.index(schema);
      if (!table) return 0;
      const count = index.count(agentName);
      if (count === 0) return 0;
      await table.delete(agentName === undefined ? 'true' : `agent_name = ${sqlString(agentName)}`);
      lanceMaintenance(this.db).touch(schema);
      this.settle(index, await table.version(), () => index.remove(agentName));
      return count;
    });
  }
}

function encoderOf(metadata: unknown): string | undefined {
  if (typeof metadata !== 'string') return undefined;
  try {
    const parsed = JSON.parse(metadata) as { encoder?: unknown };
    return typeof parsed.encoder === 'string' ? parsed.encoder : undefined;
  } catch {
    return undefined;
  }
}
