/** The contract of `MemoryStore`: memories per schema and agent, recalled by relevance, seen by other processes. */
import type { Memory, MemoryStore } from '@tessera/memories';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export interface MemoryStoreSubject {
  store: MemoryStore;
  /** Another store over the same data, as another process has. */
  other(): MemoryStore;
  /** Deploys a tenant memory schema. */
  deploy(schema: string): Promise<void>;
  /** Drops a tenant memory schema. */
  drop(schema: string): Promise<void>;
}

let clock = 1_700_000_000_000;
const memory = (agent_name: string, content: string): Memory => ({
  memory_id: unique('mem'),
  agent_name,
  content,
  created_at: clock++,
});

const TOPICS = [
  'Invoices are due within 30 days; a late invoice carries a 2% late fee each month.',
  'The office is closed for the winter holidays from December 24 to January 2.',
  'Database backups rotate nightly and are kept for fourteen days in the archive bucket.',
  'The marketing team meets on Tuesdays to plan the product launch campaign.',
  'Parking permits for the garage are renewed every quarter at the front desk.',
];

export function memoryStoreContract(label: string, subject: () => MemoryStoreSubject): void {
  describe(`${label} (MemoryStore contract)`, () => {
    async function fresh() {
      const made = subject();
      const schema = unique('agent_memories_contract');
      await made.deploy(schema);
      return { ...made, schema };
    }

    it('answers nothing from a schema not deployed, and refuses to write to it', async () => {
      const { store } = subject();
      const schema = unique('agent_memories_absent');
      expect(await store.list(schema)).toEqual([]);
      expect(await store.recall(schema, 'search_agent', 'invoice', 5)).toEqual([]);
      expect(await store.delete(schema)).toBe(0);
      await expect(store.add(schema, [memory('search_agent', 'x')])).rejects.toThrow(/not deployed/);
    });

    it('keeps memories as written, newest first, per agent', async () => {
      const { store, schema } = await fresh();
      const first = memory('search_agent', 'Q: late fees\nA: 2% a month — “quoted” ünïcode');
      const second = memory('summarizer_agent', 'Q: holidays\nA: closed December 24 to January 2');
      const third = memory('search_agent', 'Q: backups\nA: kept fourteen days');
      await store.add(schema, [first]);
      await store.add(schema, [second, third]);
      expect(await store.list(schema)).toEqual([third, second, first]);
      expect(await store.list(schema, 'search_agent')).toEqual([third, first]);
      expect(await store.list(schema, 'coding_agent')).toEqual([]);
    });

    it('recalls the relevant memory first, only of the agent asked for, at most the limit', async () => {
      const { store, schema } = await fresh();
      const written = TOPICS.map((content) => memory('search_agent', content));
      await store.add(schema, written);
      await store.add(schema, [memory('summarizer_agent', 'A late invoice fee of 2% applies every month.')]);
      const recalled = await store.recall(schema, 'search_agent', 'what fee applies to a late invoice', 3);
      expect(recalled).toHaveLength(3);
      expect(recalled[0]).toMatchObject({ memory_id: written[0]!.memory_id, agent_name: 'search_agent' });
      expect(recalled.every((m) => m.agent_name === 'search_agent')).toBe(true);
      expect(recalled[0]!.score).toBeGreaterThan(recalled[1]!.score);
      const backups = await store.recall(schema, 'search_agent', 'how long are database backups kept', 1);
      expect(backups.map((m) => m.memory_id)).toEqual([written[2]!.memory_id]);
    });

    it('never recalls one schema’s memories from another, even with the same words', async () => {
      const made = subject();
      const a = unique('agent_memories_a');
      const b = unique('agent_memories_b');
      await made.deploy(a);
      await made.deploy(b);
      const mine = memory('search_agent', 'The launch code word is heliotrope.');
      await made.store.add(a, [mine]);
      await made.store.add(b, [memory('search_agent', 'The launch code word is heliotrope.')]);
      const fromA = await made.store.recall(a, 'search_agent', 'launch code word heliotrope', 10);
      expect(fromA.map((m) => m.memory_id)).toEqual([mine.memory_id]);
      const fromB = await made.store.recall(b, 'search_agent', 'launch code word heliotrope', 10);
      expect(fromB.map((m) => m.memory_id)).not.toContain(mine.memory_id);
    });

    it('deletes one agent’s memories or all, counting them', async () => {
      const { store, schema } = await fresh();
      await store.add(schema, [
        memory('search_agent', 'one'),
        memory('search_agent', 'two'),
        memory('coding_agent', 'three'),
      ]);
      expect(await store.delete(schema, 'search_agent')).toBe(2);
      expect((await store.list(schema)).map((m) => m.agent_name)).toEqual(['coding_agent']);
      expect(await store.recall(schema, 'search_agent', 'one two', 5)).toEqual([]);
      expect(await store.delete(schema, 'search_agent')).toBe(0);
      expect(await store.delete(schema)).toBe(1);
      expect(await store.list(schema)).toEqual([]);
    });

    it('sees the writes and deletes of another process', async () => {
      const { store, other, schema } = await fresh();
      const elsewhere = other();
      await store.add(schema, [memory('search_agent', 'The garage permit renews each quarter.')]);
      expect(await elsewhere.list(schema)).toHaveLength(1);
      await elsewhere.add(schema, [memory('search_agent', 'Backups are kept fourteen days.')]);
      expect(await store.list(schema)).toHaveLength(2);
      const [top] = await store.recall(schema, 'search_agent', 'backups kept', 1);
      expect(top!.content).toBe('Backups are kept fourteen days.');
      await store.add(schema, [memory('search_agent', 'A third one.')]);
      expect(await elsewhere.delete(schema)).toBe(3);
      expect(await store.list(schema)).toEqual([]);
    });

    it('keeps a memory added again under its id as it was stored, in this process or another', async () => {
      const { store, other, schema } = await fresh();
      const first = memory('search_agent', 'The first delivery of a run.');
      await store.add(schema, [first]);
      await store.add(schema, [first, { ...first, content: 'A second delivery of the same run.' }]);
      await other().add(schema, [{ ...first, content: 'A third delivery, in another process.' }]);
      expect(await store.list(schema)).toEqual([first]);
      expect(await other().list(schema)).toEqual([first]);
    });

    it('recalls what another process added and forgets what it deleted, between appends of its own', async () => {
      const { store, other, schema } = await fresh();
      const elsewhere = other();
      await store.add(
        schema,
        TOPICS.slice(0, 3).map((text) => memory('search_agent', text)),
      );
      expect((await store.recall(schema, 'search_agent', 'garage parking permit', 1))[0]?.content).not.toBe(
        TOPICS[4],
      );
      await elsewhere.add(schema, [memory('search_agent', TOPICS[4]!)]);
      expect((await store.recall(schema, 'search_agent', 'garage parking permit', 1))[0]!.content).toBe(
        TOPICS[4],
      );
      await store.add(schema, [memory('summarizer_agent', TOPICS[3]!)]);
      await elsewhere.add(schema, [memory('summarizer_agent', 'The launch campaign moved to May.')]);
      expect(await store.list(schema, 'summarizer_agent')).toHaveLength(2);
      await elsewhere.delete(schema, 'summarizer_agent');
      await elsewhere.add(schema, [memory('coding_agent', 'Builds use the release train.')]);
      expect((await store.list(schema)).map((m) => m.agent_name).sort()).toEqual([
        'coding_agent',
        'search_agent',
        'search_agent',
        'search_agent',
        'search_agent',
      ]);
    });

    it('reads a schema dropped and deployed again as empty', async () => {
      const { store, other, deploy, drop, schema } = await fresh();
      await store.add(schema, [memory('search_agent', 'before the drop')]);
      expect(await store.list(schema)).toHaveLength(1);
      await drop(schema);
      expect(await store.list(schema)).toEqual([]);
      await deploy(schema);
      expect(await store.list(schema)).toEqual([]);
      expect(await other().list(schema)).toEqual([]);
      await store.add(schema, [memory('search_agent', 'after the drop')]);
      expect((await store.list(schema)).map((m) => m.content)).toEqual(['after the drop']);
    });
  });
}
