/** The LanceDB memory store passes the memory store contract on tables in a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbeddedEncoder } from '@tessera/encoders';
import { LanceDatabase, LanceSearchBackend, lanceConnection } from '@tessera/search';
import { memoryStoreContract } from '@tessera/testing/contracts';
import { schemaCatalog } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import { LanceMemoryStore } from '../src/index';

const dir = mkdtempSync(path.join(tmpdir(), 'memories-'));
const template = schemaCatalog.get('agent_memories')!;
// The platform's embedded encoder, as production wires it.
const encoder = createEmbeddedEncoder('glove-lexical-128');

memoryStoreContract('LanceMemoryStore', () => ({
  store: new LanceMemoryStore(lanceConnection(dir), template, encoder),
  // Its own connection, as another process has.
  other: () => new LanceMemoryStore(new LanceDatabase(dir), template, encoder),
  deploy: (schema) => new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template),
  drop: (schema) => new LanceSearchBackend(lanceConnection(dir)).dropSchema(schema),
}));

describe('LanceMemoryStore reading another process’s writes', () => {
  const memory = (id: string, content: string) => ({
    memory_id: id,
    agent_name: 'search_agent',
    content,
    created_at: Date.now(),
  });

  it('reads only the rows another process added since, and the whole table after a delete', async () => {
    const schema = `agent_memories_incremental_${Date.now()}`;
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const writer = new LanceMemoryStore(new LanceDatabase(dir), template, encoder);
    const reader = new LanceMemoryStore(new LanceDatabase(dir), template, encoder);
    await writer.add(
      schema,
      Array.from({ length: 50 }, (_, i) => memory(`m${i}`, `Routine note number ${i} about the office.`)),
    );
    await reader.recall(schema, 'search_agent', 'office', 5);
    expect(reader.reads).toEqual({ whole: 1, since: 0, rows: 50 });

    await writer.add(schema, [memory('late', 'The garage permit renews every quarter.')]);
    const [top] = await reader.recall(schema, 'search_agent', 'garage permit renewal', 1);
    expect(top!.memory_id).toBe('late');
    // One row read, not 51.
    expect(reader.reads).toEqual({ whole: 1, since: 1, rows: 51 });

    // The reader's own write, then the writer's: the rows after the last read are its own and the new one.
    await reader.add(schema, [memory('mine', 'Backups are kept fourteen days.')]);
    await writer.add(schema, [memory('later', 'The launch moved to May.')]);
    expect((await reader.list(schema)).map((m) => m.memory_id)).toContain('later');
    expect(reader.reads).toMatchObject({ whole: 1, since: 2 });
    expect(reader.reads.rows).toBeLessThanOrEqual(54);

    // A delete elsewhere cannot be read as added rows: the table is read whole.
    expect(await writer.delete(schema, 'search_agent')).toBe(53);
    await writer.add(schema, [memory('after', 'A note after the purge.')]);
    expect((await reader.list(schema)).map((m) => m.memory_id)).toEqual(['after']);
    expect(reader.reads.whole).toBe(2);
  });

  it('loses no memory of two processes writing at once, each reading the other’s', async () => {
    const schema = `agent_memories_concurrent_${Date.now()}`;
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const stores = [0, 1].map(() => new LanceMemoryStore(new LanceDatabase(dir), template, encoder));
    await Promise.all(
      stores.flatMap((store, s) =>
        Array.from({ length: 8 }, (_, i) =>
          store.add(schema, [memory(`p${s}-${i}`, `Note ${i} of writer ${s}.`)]),
        ),
      ),
    );
    for (const store of stores) {
      const ids = (await store.list(schema)).map((m) => m.memory_id).sort();
      expect(ids).toHaveLength(16);
      expect(new Set(ids).size).toBe(16);
    }
  });
});
