/** Memories and instructions over fakes: tenant guard, isolation, recall, versions and tenant delete. */
import { HttpError } from '@tessera/core';
import { createTenant, deleteTenant, getTenant } from '@tessera/tenancy';
import { fakeDomains } from '@tessera/testing/fakes';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deleteMemories,
  getInstructions,
  listMemories,
  MAX_MEMORY_CHARS,
  putInstructions,
  recallMemories,
  remember,
  tenantInstructions,
} from '../src/index';

const domains = fakeDomains();
const deps = domains.memories;

async function status(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  for (const tenant of ['alpha', 'beta', 'gone', 'fresh', 'versions'])
    await createTenant(deps.tenancy, { tenant_id: tenant, created_by: 'test' });
});

describe('memories', () => {
  it('deploys the memory schema on the first memory, not before', async () => {
    expect(await listMemories(deps, 'fresh', { limit: 10 })).toEqual({ memories: [], total_count: 0 });
    expect((await getTenant(deps.tenancy, 'fresh')).schemas_deployed).not.toContain('agent_memories');
    await remember(deps, 'fresh', 'search_agent', 'Q: hello\nA: world');
    expect((await getTenant(deps.tenancy, 'fresh')).schemas_deployed).toContain('agent_memories');
    expect((await listMemories(deps, 'fresh', { limit: 10 })).total_count).toBe(1);
  });

  it('never recalls a memory of one tenant for another, the same words stored by both', async () => {
    const words = 'The quarterly budget review moved to the Lisbon office.';
    const a = await remember(deps, 'alpha', 'search_agent', words);
    const b = await remember(deps, 'beta', 'search_agent', words);
    const fromA = await recallMemories(deps, 'alpha', 'search_agent', 'budget review Lisbon', 10);
    const fromB = await recallMemories(deps, 'beta', 'search_agent', 'budget review Lisbon', 10);
    expect(fromA.map((m) => m.memory_id)).toEqual([a.memory_id]);
    expect(fromB.map((m) => m.memory_id)).toEqual([b.memory_id]);
    const listed = await listMemories(deps, 'beta', { limit: 100 });
    expect(listed.memories.map((m) => m.memory_id)).not.toContain(a.memory_id);
  });

  it('ranks the relevant memory above the irrelevant ones', async () => {
    const relevant = await remember(
      deps,
      'alpha',
      'summarizer_agent',
      'Refunds are paid within 5 business days.',
    );
    for (const other of [
      'The cafeteria serves vegetarian lunch on Fridays.',
      'Passwords must be rotated every ninety days.',
      'The staging cluster runs three replicas.',
    ])
      await remember(deps, 'alpha', 'summarizer_agent', other);
    const [first] = await recallMemories(
      deps,
      'alpha',
      'summarizer_agent',
      'how long until refunds are paid',
      4,
    );
    expect(first!.memory_id).toBe(relevant.memory_id);
  });

  it('lists newest first with the total, filters by agent, and deletes by agent', async () => {
    const first = await remember(deps, 'gone', 'coding_agent', 'first');
    domains.clock.offset += 10;
    const second = await remember(deps, 'gone', 'coding_agent', 'second');
    await remember(deps, 'gone', 'search_agent', 'third');
    const page = await listMemories(deps, 'gone', { agentName: 'coding_agent', limit: 1 });
    expect(page).toEqual({ memories: [second], total_count: 2 });
    expect((await listMemories(deps, 'gone', { limit: 10 })).memories).toContainEqual(first);
    expect(await deleteMemories(deps, 'gone', 'coding_agent')).toEqual({ deleted: 2 });
    expect((await listMemories(deps, 'gone', { limit: 10 })).total_count).toBe(1);
  });

  it('cuts a very long content', async () => {
    const memory = await remember(deps, 'beta', 'coding_agent', 'x'.repeat(100_000));
    expect(memory.content.length).toBe(MAX_MEMORY_CHARS);
  });

  it('answers 404 for an unregistered tenant and 400 for a malformed id, storing nothing', async () => {
    expect(await status(listMemories(deps, 'nobody', { limit: 10 }))).toBe(404);
    expect(await status(deleteMemories(deps, 'nobody'))).toBe(404);
    expect(await status(remember(deps, 'nobody', 'search_agent', 'x'))).toBe(404);
    expect(await status(listMemories(deps, 'a:b:c', { limit: 10 }))).toBe(400);
    expect([...domains.search.tables.keys()].some((name) => name.includes('nobody'))).toBe(false);
  });
});

describe('instructions', () => {
  it('answers empty text at version 0 before any write', async () => {
    expect(await getInstructions(deps, 'alpha')).toEqual({
      tenant_id: 'alpha:alpha',
      text: '',
      version: 0,
      updated_at: 0,
    });
    expect(await tenantInstructions(deps, 'alpha:alpha')).toBe('');
  });

  it('gives each of concurrent writes its own version, losing none', async () => {
    const writes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => putInstructions(deps, 'versions', `version text ${i}`)),
    );
    expect(writes.map((w) => w.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const latest = await getInstructions(deps, 'versions');
    expect(latest.version).toBe(20);
    expect(latest.text).toBe(writes.find((w) => w.version === 20)!.text);
  });

  it('refuses an unregistered tenant', async () => {
    expect(await status(putInstructions(deps, 'nobody', 'x'))).toBe(404);
    expect(await status(getInstructions(deps, 'nobody'))).toBe(404);
  });
});

describe('tenant delete', () => {
  it("removes the tenant's memories and instructions, and only its own", async () => {
    await createTenant(deps.tenancy, { tenant_id: 'doomed', created_by: 'test' });
    await remember(deps, 'doomed', 'search_agent', 'The budget review moved to Lisbon.');
    await putInstructions(deps, 'doomed', 'Answer briefly.');
    const kept = (await listMemories(deps, 'alpha', { limit: 1000 })).total_count;
    await deleteTenant(deps.tenancy, 'doomed');
    expect(domains.memories.instructions.records.has('doomed:doomed')).toBe(false);
    expect(await deps.store.list('agent_memories_doomed_doomed')).toEqual([]);
    expect([...domains.search.tables.keys()]).not.toContain('agent_memories_doomed_doomed');
    expect((await listMemories(deps, 'alpha', { limit: 1000 })).total_count).toBe(kept);
    // Created again, the tenant starts with nothing.
    await createTenant(deps.tenancy, { tenant_id: 'doomed', created_by: 'test' });
    expect(await listMemories(deps, 'doomed', { limit: 10 })).toEqual({ memories: [], total_count: 0 });
    expect((await getInstructions(deps, 'doomed')).version).toBe(0);
  });
});
