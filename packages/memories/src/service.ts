/**
 * The memories and instructions domain: the admin routes (tenant guard first), what dispatch gives an agent
 * run (its tenant's instructions, recall of its memories) and the memory a completed run leaves.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Memories } from '@tessera/api';
import {
  ConflictError,
  type KeyedSerializer,
  type TenantDataOwner,
  type TenantId,
  tenantSchemaName,
} from '@tessera/core';
import {
  ensureTenantSchema,
  guardTenant,
  requireTenant,
  type TenancyDeps,
  type TenantRef,
} from '@tessera/tenancy';
import type { InstructionsRecord, Memory, RecalledMemory } from './model';
import type { InstructionsStore, MemoryStore } from './store';

/** The auxiliary schema of a tenant's memories, deployed on its first memory. */
export const MEMORY_SCHEMA = 'agent_memories';

/** The longest memory kept: a longer content is cut (a 100 KB query is not a memory). */
export const MAX_MEMORY_CHARS = 2000;

/** Times an instructions write reads the head again after another writer took the version it meant to write. */
const WRITE_ATTEMPTS = 100;

export interface MemoriesDeps {
  tenancy: TenancyDeps;
  store: MemoryStore;
  instructions: InstructionsStore;
  /** Instructions writers of this process take turns per tenant (others retry on a taken version). */
  writes: KeyedSerializer;
  now: () => number;
}

const schemaOf = (tenant: TenantId) => tenantSchemaName(MEMORY_SCHEMA, tenant);

/** `GET /admin/tenant/{tenant}/memories`: newest first, at most `limit`, with the count of all. */
export async function listMemories(
  deps: MemoriesDeps,
  tenantId: string,
  options: { agentName?: string; limit: number },
): Promise<{ memories: Memory[]; total_count: number }> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const all = await deps.store.list(schemaOf(tenant), options.agentName);
  return { memories: all.slice(0, options.limit), total_count: all.length };
}

/** `DELETE /admin/tenant/{tenant}/memories`: every memory of the tenant, or of one agent. */
export async function deleteMemories(
  deps: MemoriesDeps,
  tenantId: string,
  agentName?: string,
): Promise<{ deleted: number }> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  return { deleted: await deps.store.delete(schemaOf(tenant), agentName) };
}

/** A memory to store: its agent and content, and, for a run's memory, the run's id and time (`once`). */
export interface NewMemory {
  agentName: string;
  content: string;
  once?: { memoryId: string; createdAt: number };
}

/**
 * Stores memories of the tenant's agents in one write, deploying the tenant's memory schema on its first.
 * A memory with `once` (the id and time of the run it is the memory of) stored already is kept as it is.
 */
export async function rememberAll(
  deps: MemoriesDeps,
  ref: TenantRef,
  entries: readonly NewMemory[],
): Promise<Memory[]> {
  const guarded = await guardTenant(deps.tenancy, ref);
  const schema = await ensureTenantSchema(deps.tenancy, guarded, MEMORY_SCHEMA);
  const memories = entries.map(
    ({ agentName, content, once }): Memory => ({
      memory_id: once?.memoryId ?? randomUUID(),
      agent_name: agentName,
      content: content.length > MAX_MEMORY_CHARS ? `${content.slice(0, MAX_MEMORY_CHARS - 1)}…` : content,
      created_at: once?.createdAt ?? deps.now(),
    }),
  );
  if (memories.length > 0) await deps.store.add(schema, memories);
  return memories;
}

/** Stores one memory of the tenant's agent (see `rememberAll`). */
export async function remember(
  deps: MemoriesDeps,
  ref: TenantRef,
  agentName: string,
  content: string,
  once?: { memoryId: string; createdAt: number },
): Promise<Memory> {
  const [memory] = await rememberAll(deps, ref, [{ agentName, content, once }]);
  return memory!;
}

/** The tenant's memories of the agent most relevant to the query, best first. */
export async function recallMemories(
  deps: MemoriesDeps,
  ref: TenantRef,
  agentName: string,
  query: string,
  limit = 5,
): Promise<RecalledMemory[]> {
  const { tenant } = await guardTenant(deps.tenancy, ref);
  return deps.store.recall(schemaOf(tenant), agentName, query, limit);
}

/** The record the instructions routes answer (`text: ''`, version 0 while never written). */
function instructionsAnswer(tenantId: string, record: InstructionsRecord | undefined): Memories.Instructions {
  return record ?? { tenant_id: tenantId, text: '', version: 0, updated_at: 0 };
}

/** A guarded tenant's instructions text ('' when none): what every system prompt of its runs carries. */
export async function tenantInstructions(deps: MemoriesDeps, tenantFullId: string): Promise<string> {
  return (await deps.instructions.get(tenantFullId))?.text ?? '';
}

export async function getInstructions(deps: MemoriesDeps, tenantId: string): Promise<Memories.Instructions> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  return instructionsAnswer(tenant.full, await deps.instructions.get(tenant.full));
}

/**
 * Writes the tenant's instructions as the next version. Writers of this process take turns; one of another
 * process that took the version first makes this one read the head again and take the next.
 */
export async function putInstructions(
  deps: MemoriesDeps,
  tenantId: string,
  text: string,
): Promise<InstructionsRecord> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  return deps.writes.run(`instructions\u0000${tenant.full}`, async () => {
    for (let attempt = 1; ; attempt++) {
      const head = await deps.instructions.get(tenant.full);
      const record = {
        tenant_id: tenant.full,
        text,
        version: (head?.version ?? 0) + 1,
        updated_at: deps.now(),
      };
      if (await deps.instructions.put(record)) return record;
      if (attempt >= WRITE_ATTEMPTS) {
        throw new ConflictError(`Instructions of tenant '${tenant.full}' are being written by others; retry`);
      }
      await sleep(Math.random() * 5 * Math.min(attempt, 10));
    }
  });
}

/** A tenant delete removes its memories (the tenancy domain drops their table too). */
export function memoriesData(deps: MemoriesDeps): TenantDataOwner {
  return {
    name: 'agent-memories',
    purge: async (tenant) => {
      await deps.store.delete(schemaOf(tenant));
    },
  };
}

/** A tenant delete removes its instructions. */
export function instructionsData(deps: MemoriesDeps): TenantDataOwner {
  return {
    name: 'instructions',
    purge: async (tenant) => {
      await deps.instructions.purgeTenant(tenant.full);
    },
  };
}
