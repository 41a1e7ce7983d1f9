/**
 * One tenant's memories in memory, grouped by agent, with what recall scores: each memory's token codes
 * (binary MaxSim against the query's) and its terms (BM25 over that agent's memories). A tenant's memories
 * are small texts, so recall scans the agent's memories rather than keeping an index on disk; the LanceDB
 * adapter and the in-memory fake keep one of these per table version.
 *
 * The embedded encoder gives a word the same code wherever it stands, so a tenant's memories share few
 * distinct codes: each is kept once (a vocabulary), memories hold their codes' numbers, and a recall compares
 * each distinct code with the query once. Groups only grow, or go whole (deletes are per agent or all).
 */
import { type MultiVector, tokenize } from '@tessera/encoders';
import { codeWords, popcount32 } from '@tessera/search';
import type { Memory, RecalledMemory } from './model';

const K1 = 1.2;
const B = 0.75;

/** How recall combines its two signals (see README: measured with `npm run bench -- memories`). */
export type RecallScoring = 'hybrid' | 'vector' | 'bm25';

/** How much each signal weighs in a recall's score. */
export interface RecallWeights {
  vector: number;
  text: number;
}

/** The scorings `npm run bench -- memories` compares; recall uses `hybrid`. */
export const SCORINGS: Record<RecallScoring, RecallWeights> = {
  hybrid: { vector: 1, text: 0.25 },
  vector: { vector: 1, text: 0 },
  bm25: { vector: 0, text: 1 },
};

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

/** One agent's memories, numbered in arrival order, with their BM25 postings and token numbers. */
class AgentMemories {
  readonly members: IndexedMemory[] = [];
  readonly ids = new Set<string>();
  readonly postings = new Map<string, { members: number[]; tfs: number[] }>();
  readonly lengths: number[] = [];
  totalLength = 0;
  /** Every member's token numbers, one after another; member m's start at `starts[m]`. */
  numbers = new Int32Array(1024);
  starts: number[] = [0];

  add(memory: IndexedMemory, numbers: Int32Array): void {
    const member = this.members.length;
    this.members.push(memory);
    this.ids.add(memory.memory_id);
    for (const [term, tf] of memory.terms) {
      let list = this.postings.get(term);
      if (!list) {
        list = { members: [], tfs: [] };
        this.postings.set(term, list);
      }
      list.members.push(member);
      list.tfs.push(tf);
    }
    this.lengths.push(memory.length);
    this.totalLength += memory.length;
    const start = this.starts[member]!;
    if (start + numbers.length > this.numbers.length) {
      const grown = new Int32Array(Math.max(start + numbers.length, this.numbers.length * 2));
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers.set(numbers, start);
    this.starts.push(start + numbers.length);
  }

  /**
   * BM25 of the query's distinct terms, by member. Among 1,000 memories or more, terms in more than half of
   * them weigh almost nothing and are left out, unless the query has nothing else (as the graph's node text
   * index does).
   */
  bm25(query: string): Float64Array {
    const count = this.members.length;
    const scores = new Float64Array(count);
    const average = this.totalLength / count || 1;
    const lists = [...new Set(tokenize(query))]
      .map((term) => this.postings.get(term))
      .filter((list): list is { members: number[]; tfs: number[] } => list !== undefined);
    const selective = count >= 1000 ? lists.filter((list) => list.members.length <= count / 2) : lists;
    for (const list of selective.length > 0 ? selective : lists) {
      const df = list.members.length;
      const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const member = list.members[i]!;
        const tf = list.tfs[i]!;
        const norm = K1 * (1 - B + (B * this.lengths[member]!) / average);
        scores[member]! += (idf * tf * (K1 + 1)) / (tf + norm);
      }
    }
    return scores;
  }
}

export class MemoryIndex {
  private readonly agents = new Map<string, AgentMemories>();
  /** Each distinct token code once (4 words), numbered. */
  private readonly vocabulary = new Map<string, number>();
  private vocabularyCodes = new Uint32Array(4096);

  /**
   * The highest LanceDB row id read into the index (its table rows added since have higher ones), when the
   * store reads row ids; undefined before any was read.
   */
  rowWatermark: bigint | undefined;

  constructor(public version: number) {}

  /** Whether a memory of this id is in the index. */
  has(memoryId: string): boolean {
    for (const group of this.agents.values()) if (group.ids.has(memoryId)) return true;
    return false;
  }

  get size(): number {
    let size = 0;
    for (const group of this.agents.values()) size += group.members.length;
    return size;
  }

  /** Adds a memory; one already there (by id) is left as it is. */
  add(memory: IndexedMemory): void {
    let group = this.agents.get(memory.agent_name);
    if (!group) {
      group = new AgentMemories();
      this.agents.set(memory.agent_name, group);
    }
    if (group.ids.has(memory.memory_id)) return;
    group.add(memory, this.number(memory));
  }

  private number(memory: IndexedMemory): Int32Array {
    const numbers = new Int32Array(memory.tokens);
    const codes = memory.codes;
    for (let t = 0; t < memory.tokens; t++) {
      const o = t * 4;
      const key = `${codes[o]},${codes[o + 1]},${codes[o + 2]},${codes[o + 3]}`;
      let number = this.vocabulary.get(key);
      if (number === undefined) {
        number = this.vocabulary.size;
        this.vocabulary.set(key, number);
        if ((number + 1) * 4 > this.vocabularyCodes.length) {
          const grown = new Uint32Array(this.vocabularyCodes.length * 2);
          grown.set(this.vocabularyCodes);
          this.vocabularyCodes = grown;
        }
        this.vocabularyCodes.set(codes.subarray(o, o + 4), number * 4);
      }
      numbers[t] = number;
    }
    return numbers;
  }

  /** Removes one agent's memories, or all; answers how many there were. */
  remove(agentName?: string): number {
    if (agentName === undefined) {
      const size = this.size;
      this.agents.clear();
      return size;
    }
    const size = this.count(agentName);
    this.agents.delete(agentName);
    return size;
  }

  count(agentName?: string): number {
    return agentName === undefined ? this.size : (this.agents.get(agentName)?.members.length ?? 0);
  }

  /** Newest first (ties by id). */
  list(agentName?: string): Memory[] {
    const groups = agentName === undefined ? [...this.agents.values()] : [this.agents.get(agentName)];
    const all: Memory[] = [];
    for (const group of groups)
      for (const { memory_id, agent_name, content, created_at } of group?.members ?? [])
        all.push({ memory_id, agent_name, content, created_at });
    return all.sort(
      (a, b) =>
        b.created_at - a.created_at || (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : 0),
    );
  }

  /**
   * The agent's memories best for the query: binary MaxSim of the query's token codes against each memory's
   * (per query token `1 - 2h/128`, the best over the memory's tokens, averaged over query tokens) plus BM25
   * of the query's terms over the agent's memories, divided by the best BM25 score and weighed by
   * `weights.text`.
   */
  recall(
    agentName: string,
    query: string,
    vectors: Pick<MultiVector, 'tokens' | 'binary'>,
    limit: number,
    scoring: RecallScoring | RecallWeights = 'hybrid',
  ): RecalledMemory[] {
    const weights = typeof scoring === 'string' ? SCORINGS[scoring] : scoring;
    const group = this.agents.get(agentName);
    if (!group || group.members.length === 0 || limit <= 0) return [];
    const bm25 = weights.text > 0 ? group.bm25(query) : undefined;
    let bestText = 0;
    if (bm25) for (const score of bm25) bestText = Math.max(bestText, score);
    const textWeight = bestText > 0 ? weights.text / bestText : 0;
    const queryTokens = weights.vector > 0 ? vectors.tokens : 0;
    if (queryTokens === 0 && bestText === 0) return [];

    const rowOf = queryTokens > 0 ? this.similarities(vectors, queryTokens) : undefined;
    // Measured (bench/memories.bench.ts): weighing query tokens by their rows' lengths found less.
    const scale = queryTokens > 0 ? weights.vector / queryTokens : 0;

    const best = new Float64Array(queryTokens);
    const { numbers, starts } = group;
    // The best `limit` without sorting every member: a floor rises as better ones arrive.
    let top: { member: number; score: number }[] = [];
    let floor = Number.NEGATIVE_INFINITY;
    for (let member = 0; member < group.members.length; member++) {
      const text = bm25 ? bm25[member]! * textWeight : 0;
      if (queryTokens === 0 && text === 0) continue;
      let score = text;
      const end = starts[member + 1]!;
      if (rowOf && end > starts[member]!) {
        best.fill(-1);
        for (let t = starts[member]!; t < end; t++) {
          const { rows, at } = rowOf(numbers[t]!);
          for (let q = 0; q < queryTokens; q++) if (rows[at + q]! > best[q]!) best[q] = rows[at + q]!;
        }
        let sum = 0;
        for (let q = 0; q < queryTokens; q++) sum += best[q]!;
        score += sum * scale;
      }
      if (score < floor) continue;
      top.push({ member, score });
      if (top.length >= limit * 4) {
        top = top.sort((a, b) => b.score - a.score).slice(0, limit);
        floor = top[top.length - 1]!.score;
      }
    }
    return top
      .map(({ member, score }) => {
        const memory = group.members[member]!;
        return {
          memory_id: memory.memory_id,
          agent_name: memory.agent_name,
          content: memory.content,
          score,
        };
      })
      .sort((a, b) => b.score - a.score || (a.memory_id < b.memory_id ? -1 : 1))
      .slice(0, limit);
  }

  /** Each vocabulary code's `1 - 2h/128` against every query token, computed the first time it is met. */
  private similarities(vectors: Pick<MultiVector, 'binary'>, queryTokens: number) {
    const q = codeWords(vectors.binary);
    const codes = this.vocabularyCodes;
    const at = new Int32Array(this.vocabulary.size).fill(-1);
    let rows = new Float64Array(queryTokens * 256);
    let used = 0;
    const answer = { rows, at: 0 };
    return (number: number) => {
      let start = at[number]!;
      if (start < 0) {
        start = used;
        used += queryTokens;
        if (used > rows.length) {
          const grown = new Float64Array(rows.length * 2);
          grown.set(rows);
          rows = grown;
        }
        const o = number * 4;
        for (let j = 0; j < queryTokens; j++) {
          const h =
            popcount32(q[j * 4]! ^ codes[o]!) +
            popcount32(q[j * 4 + 1]! ^ codes[o + 1]!) +
            popcount32(q[j * 4 + 2]! ^ codes[o + 2]!) +
            popcount32(q[j * 4 + 3]! ^ codes[o + 3]!);
          rows[start + j] = 1 - (2 * h) / 128;
        }
        at[number] = start;
      }
      answer.rows = rows;
      answer.at = start;
      return answer;
    };
  }
}
