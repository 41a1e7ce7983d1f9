/**
 * The ports of this package. Memories live in each tenant's `agent_memories_<org>_<tenant>` schema of the
 * search backend (deployed on the tenant's first memory); instructions are one versioned record per tenant.
 */
import type { InstructionsRecord, Memory, RecalledMemory } from './model';

export interface MemoryStore {
  /**
   * Stores memories (embedded by the store's encoder) in the schema, in one write; a memory whose id is
   * stored already is kept as stored (adding it again writes nothing). Fails, storing nothing, when the
   * schema is not deployed.
   */
  add(schema: string, memories: readonly Memory[]): Promise<void>;
  /** Every memory of the schema, or of one agent, newest first; none when the schema is not deployed. */
  list(schema: string, agentName?: string): Promise<Memory[]>;
  /**
   * One agent's memories most relevant to `query`, best first, at most `limit` (none when the agent has none,
   * or the query has no words to score).
   */
  recall(schema: string, agentName: string, query: string, limit: number): Promise<RecalledMemory[]>;
  /** Removes every memory of the schema, or of one agent; answers how many were removed. */
  delete(schema: string, agentName?: string): Promise<number>;
}

export interface InstructionsStore {
  /** The tenant's record, if ever written. */
  get(tenantId: string): Promise<InstructionsRecord | undefined>;
  /**
   * Writes `record` only if the stored version is `record.version - 1` (nothing stored for version 1): a
   * conditional write, false when another writer got there first.
   */
  put(record: InstructionsRecord): Promise<boolean>;
  /** Removes the tenant's record; answers whether there was one. */
  purgeTenant(tenantId: string): Promise<boolean>;
}
