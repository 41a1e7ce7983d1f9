/**
 * In-memory fakes of the memories package's stores. Memories are rows of the tenant's table in the in-memory
 * search database (so the tenancy deploys and drops it as the backend's), read into a `MemoryIndex` once per
 * table and version, and recalled by the same scoring as the LanceDB adapter. Instructions are one record a
 * tenant, written only over the version before.
 */
import type { MultiVectorEncoder } from '@tessera/encoders';
import {
  type InstructionsRecord,
  type InstructionsStore,
  indexed,
  type Memory,
  MemoryIndex,
  type MemoryStore,
  type RecalledMemory,
} from '@tessera/memories';
import type { InMemorySearchDatabase, MemoryTable } from './search';

interface MemoryRow {
  document_id: string;
  memory: Memory;
  binary: Uint8Array;
  tokens: number;
}

export class InMemoryMemoryStore implements MemoryStore {
  private readonly indexes = new Map<string, { table: MemoryTable; index: MemoryIndex }>();

  constructor(
    readonly db: InMemorySearchDatabase,
    private readonly encoder: MultiVectorEncoder,
  ) {}

  private index(schema: string): MemoryIndex {
    const table = this.db.table(schema);
    if (!table) return new MemoryIndex(-1);
    const cached = this.indexes.get(schema);
    if (cached?.table === table && cached.index.version === table.version) return cached.index;
    const index = new MemoryIndex(table.version);
    for (const row of table.rows.values() as Iterable<unknown>) {
      const { memory, binary, tokens } = structuredClone(row as MemoryRow);
      index.add(indexed(memory, { tokens, binary }));
    }
    this.indexes.set(schema, { table, index });
    return index;
  }

  async add(schema: string, memories: readonly Memory[]): Promise<void> {
    if (!this.db.table(schema)) throw new Error(`Memory schema ${schema} is not deployed`);
    const vectors = memories.length
      ? await this.encoder.encode(
          memories.map((m) => m.content),
          'document',
        )
      : [];
    const table = this.db.table(schema);
    if (!table) throw new Error(`Memory schema ${schema} is not deployed`);
    const unseen = memories.filter(
      (memory, i) =>
        !table.rows.has(memory.memory_id) &&
        memories.findIndex((m) => m.memory_id === memory.memory_id) === i,
    );
    if (unseen.length === 0) return;
    memories.forEach((memory, i) => {
      if (!unseen.includes(memory)) return;
      const row: MemoryRow = {
        document_id: memory.memory_id,
        memory: { ...memory },
        binary: vectors[i]!.binary,
        tokens: vectors[i]!.tokens,
      };
      table.rows.set(memory.memory_id, structuredClone(row) as unknown as Record<string, unknown>);
    });
    table.version++;
  }

  async list(schema: string, agentName?: string): Promise<Memory[]> {
    return this.index(schema).list(agentName);
  }

  async recall(schema: string, agentName: string, query: string, limit: number): Promise<RecalledMemory[]> {
    const index = this.index(schema);
    if (index.count(agentName) === 0) return [];
    const [vectors] = await this.encoder.encode([query], 'query');
    return index.recall(agentName, query, vectors!, limit);
  }

  async delete(schema: string, agentName?: string): Promise<number> {
    const table = this.db.table(schema);
    if (!table) return 0;
    let removed = 0;
    for (const [id, row] of table.rows) {
      if (agentName === undefined || (row as unknown as MemoryRow).memory.agent_name === agentName) {
        table.rows.delete(id);
        removed++;
      }
    }
    if (removed > 0) table.version++;
    return removed;
  }
}

export class InMemoryInstructionsStore implements InstructionsStore {
  readonly records = new Map<string, InstructionsRecord>();

  async get(tenantId: string) {
    const record = this.records.get(tenantId);
    return record ? { ...record } : undefined;
  }

  async put(record: InstructionsRecord) {
    const stored = this.records.get(record.tenant_id);
    if ((stored?.version ?? 0) !== record.version - 1) return false;
    this.records.set(record.tenant_id, { ...record });
    return true;
  }

  async purgeTenant(tenantId: string) {
    return this.records.delete(tenantId);
  }
}
