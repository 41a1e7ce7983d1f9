/** The in-memory recall index: its scores are binary MaxSim and BM25 as defined, its top-k the full sort's. */
import { createEmbeddedEncoder } from '@tessera/encoders';
import { binaryMaxSim, codeWords } from '@tessera/search';
import { describe, expect, it } from 'vitest';
import { indexed, MemoryIndex } from '../src/index';

const encoder = createEmbeddedEncoder('glove-lexical-128');
const WORDS =
  'invoice fee late payment holiday office backup database team launch garage permit key vault'.split(' ');

async function filled(count: number) {
  const contents = Array.from(
    { length: count },
    (_, i) =>
      `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} ${i}`,
  );
  const vectors = await encoder.encode(contents, 'document');
  const index = new MemoryIndex(1);
  const memories = contents.map((content, i) =>
    indexed(
      { memory_id: `m${String(i).padStart(4, '0')}`, agent_name: 'a', content, created_at: i },
      vectors[i]!,
    ),
  );
  for (const memory of memories) index.add(memory);
  return { index, memories };
}

describe('MemoryIndex', () => {
  it("scores vectors as binary MaxSim of the query's codes against each memory's", async () => {
    const { index, memories } = await filled(300);
    const [query] = await encoder.encode(['late invoice fee'], 'query');
    const recalled = index.recall('a', 'late invoice fee', query!, 300, 'vector');
    expect(recalled).toHaveLength(300);
    const q = codeWords(query!.binary);
    for (const memory of recalled) {
      const stored = memories.find((m) => m.memory_id === memory.memory_id)!;
      expect(memory.score).toBeCloseTo(binaryMaxSim(q, query!.tokens, stored.codes, 0, stored.tokens), 10);
    }
  });

  it('answers the best `limit` of the full ranking, ties by id', async () => {
    const { index } = await filled(500);
    const [query] = await encoder.encode(['database backup vault'], 'query');
    const all = index.recall('a', 'database backup vault', query!, 500);
    for (const limit of [1, 3, 10])
      expect(index.recall('a', 'database backup vault', query!, limit)).toEqual(all.slice(0, limit));
    expect(all.map((m) => m.score)).toEqual([...all.map((m) => m.score)].sort((a, b) => b - a));
  });

  it('leaves a memory added again as it was, and answers nothing for a query without words', async () => {
    const { index, memories } = await filled(20);
    index.add({ ...memories[0]!, content: 'changed' });
    expect(index.count('a')).toBe(20);
    expect(index.list('a').find((m) => m.memory_id === 'm0000')!.content).not.toBe('changed');
    const [empty] = await encoder.encode(['...'], 'query');
    expect(index.recall('a', '...', empty!, 5)).toEqual([]);
    expect(index.recall('b', 'invoice', empty!, 5)).toEqual([]);
  });
});
