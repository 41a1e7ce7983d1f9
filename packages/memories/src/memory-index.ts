/**
 * One tenant's memories in memory, grouped by agent, with what recall scores: each memory's packed token
 * codes (binary MaxSim against the query's) and its terms (BM25 over that agent's memories). A tenant's
 * memories are small texts, so recall scans the agent's memories rather than keeping an index on disk; the
 * LanceDB adapter and the in-memory fake keep one of these per table version.
 */
import { type MultiVector, tokenize } from '@tessera/encoders';
import { binaryMaxSim, codeWords } from '@tessera/search';
import type { Memory, RecalledMemory } from './model';

const K1 = 1.2;
const B = 0.75;

/** How recall combines its two signals (see README: measured with `npm run bench -- memories`). */
export type RecallScoring = 'hybrid' | 'vector' | 'bm25';

export interface IndexedMemory extends Memory {
  /** Packed sign bits of the content's token vectors (4 words a token). */
  codes: Uint32Array;
  tokens: number;
  /** Term frequencies of the content. */
  terms: Map<string, number>;
  length: number;
}

/** A memory's codes and terms from its content's vectors. */
export function indexed(memory: Memory, vectors: Pick<MultiVector, 'tokens' | 'binary'>): IndexedMemory {
  const words = tokenize(memory.content);
  const terms = new Map<string, number>();
  for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
  return {
    ...memory,
    codes: codeWords(vectors.binary).slice(),
    tokens: vectors.tokens,
    terms,
    length: words.length,
  };
}

export class MemoryIndex {
  /** Each agent's memories by id. */
  private readonly agents = new Map<string, Map<string, IndexedMemory>>();

  constructor(public version: number) {}

  get size(): number {
    let size = 0;
    for (const memories of this.agents.values()) size += memories.size;
    return size;
  }

  add(memory: IndexedMemory): void {
    let memories = this.agents.get(memory.agent_name);
    if (!memories) {
      memories = new Map();
      this.agents.set(memory.agent_name, memories);
    }
    memories.set(memory.memory_id, memory);
  }

  /** Removes one agent's memories, or all; answers how many there were. */
  remove(agentName?: string): number {
    if (agentName === undefined) {
      const size = this.size;
      this.agents.clear();
      return size;
    }
    const size = this.agents.get(agentName)?.size ?? 0;
    this.agents.delete(agentName);
    return size;
  }

  count(agentName?: string): number {
    return agentName === undefined ? this.size : (this.agents.get(agentName)?.size ?? 0);
  }

  /** Newest first (ties by id). */
  list(agentName?: string): Memory[] {
    const groups = agentName === undefined ? [...this.agents.values()] : [this.agents.get(agentName)];
    const all: Memory[] = [];
    for (const group of groups)
      for (const { memory_id, agent_name, content, created_at } of group?.values() ?? [])
        all.push({ memory_id, agent_name, content, created_at });
    return all.sort(
      (a, b) =>
        b.created_at - a.created_at || (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : 0),
    );
  }

  /**
   * The agent's memories best for the query: binary MaxSim of the query's token codes against each memory's
   * (per query token `1 - 2h/128`, averaged) plus BM25 of the query's terms over the agent's memories,
   * normalized to [0, 1] by the best BM25 score, so neither signal drowns the other.
   */
  recall(
    agentName: string,
    query: string,
    vectors: Pick<MultiVector, 'tokens' | 'binary'>,
    limit: number,
    scoring: RecallScoring = 'hybrid',
  ): RecalledMemory[] {
    const memories = this.agents.get(agentName);
    if (!memories || memories.size === 0 || limit <= 0) return [];
    const all = [...memories.values()];
    const bm25 = scoring === 'vector' ? undefined : bm25Scores(all, query);
    const useVectors = scoring !== 'bm25' && vectors.tokens > 0;
    const q = useVectors ? codeWords(vectors.binary) : undefined;
    let bestText = 0;
    if (bm25) for (const score of bm25) bestText = Math.max(bestText, score);
    if (!useVectors && bestText === 0) return [];
    const scored: RecalledMemory[] = [];
    for (let i = 0; i < all.length; i++) {
      const memory = all[i]!;
      const text = bestText > 0 ? bm25![i]! / bestText : 0;
      if (!useVectors && text === 0) continue;
      const vector = q ? binaryMaxSim(q, vectors.tokens, memory.codes, 0, memory.tokens) : 0;
      scored.push({
        memory_id: memory.memory_id,
        agent_name: memory.agent_name,
        content: memory.content,
        score: vector + text,
      });
    }
    return scored.sort((a, b) => b.score - a.score || (a.memory_id < b.memory_id ? -1 : 1)).slice(0, limit);
  }
}

/** BM25 of the query's distinct terms over the memories, in their order. */
function bm25Scores(memories: IndexedMemory[], query: string): Float64Array {
  const scores = new Float64Array(memories.length);
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0) return scores;
  let total = 0;
  for (const memory of memories) total += memory.length;
  const average = total / memories.length || 1;
  for (const term of terms) {
    let df = 0;
    for (const memory of memories) if (memory.terms.has(term)) df++;
    if (df === 0) continue;
    const idf = Math.log(1 + (memories.length - df + 0.5) / (df + 0.5));
    for (let i = 0; i < memories.length; i++) {
      const tf = memories[i]!.terms.get(term);
      if (tf === undefined) continue;
      const norm = K1 * (1 - B + (B * memories[i]!.length) / average);
      scores[i]! += (idf * tf * (K1 + 1)) / (tf + norm);
    }
  }
  return scores;
}
