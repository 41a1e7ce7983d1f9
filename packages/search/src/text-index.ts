/**
 * BM25 over the text fields of a table's live documents, in memory, scored as LanceDB 0.37's full-text
 * index scores a fully indexed table: its analyzer's terms (each distinct word is analyzed once by
 * LanceDB's own tokenizer), per field `idf = ln(1 + (N - n + 0.5) / (n + 0.5))` and
 * `tf·(k1 + 1) / (tf + k1·(1 - b + b·dl/avgdl))` with k1 1.2 and b 0.75 over the documents holding the
 * field, a repeated query word counted again, and several fields combined by their best score (what
 * `MultiMatchQuery` answers). Unlike the index, the statistics are always those of every live document, so a
 * score never depends on which rows LanceDB has indexed yet.
 */
import { tokenize } from '@lancedb/lancedb';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Runs of letters and digits: the pieces LanceDB's `simple` tokenizer splits text into. */
const WORD = /[\p{Alphabetic}\p{N}]+/gu;
/** A word no analyzer drops or changes, closing each batch so a shifted position shows. */
const SENTINEL = 'qzxjvkwsentinel';
const LEARN_BATCH = 4096;

/** Terms of raw words, as LanceDB's default full-text analyzer makes them; each distinct word analyzed once. */
export class Analyzer {
  private readonly terms = new Map<string, readonly string[]>();

  /** The terms of each text, in order (undefined for a text that is absent). */
  async analyze(texts: readonly (string | null | undefined)[]): Promise<(string[] | undefined)[]> {
    const words = texts.map((text) =>
      typeof text === 'string' ? (text.toLowerCase().match(WORD) ?? []) : undefined,
    );
    const unknown = new Set<string>();
    for (const list of words) if (list) for (const word of list) if (!this.terms.has(word)) unknown.add(word);
    if (unknown.size > 0) await this.learn([...unknown]);
    return words.map((list) => list?.flatMap((word) => this.terms.get(word)!));
  }

  private async learn(words: string[]): Promise<void> {
    for (let start = 0; start < words.length; start += LEARN_BATCH) {
      const batch = words.slice(start, start + LEARN_BATCH);
      const tokens = await tokenize(`${batch.join(' ')} ${SENTINEL}`, {});
      const last = tokens.at(-1);
      if (last?.text === SENTINEL && last.position === batch.length) {
        const found: string[][] = batch.map(() => []);
        for (const token of tokens.slice(0, -1)) found[token.position]!.push(token.text);
        batch.forEach((word, i) => {
          this.terms.set(word, found[i]!);
        });
        continue;
      }
      // A word the analyzer split further: each on its own.
      for (const word of batch)
        this.terms.set(
          word,
          (await tokenize(word, {})).map((token) => token.text),
        );
    }
  }
}

/** Numbers terms across a table's segments. */
export class Vocabulary {
  private readonly ids = new Map<string, number>();

  get size(): number {
    return this.ids.size;
  }

  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(term, id);
    }
    return id;
  }

  find(term: string): number | undefined {
    return this.ids.get(term);
  }
}

/** One field of a segment's documents: per document its distinct terms and counts, and postings by term. */
export interface FieldPostings {
  /** 1 when the document has the field (a null field is not indexed). */
  present: Uint8Array;
  /** Terms per document. */
  lengths: Int32Array;
  /** CSR by document: distinct term ids and their counts. */
  docStart: Int32Array;
  docTerms: Int32Array;
  docCounts: Int32Array;
  /** CSR by term: slot of a term id, documents holding it and the counts. */
  slots: Map<number, number>;
  postStart: Int32Array;
  postDocs: Int32Array;
  postCounts: Int32Array;
}

/** A field's postings from each document's terms (undefined: the field is absent). */
export function buildField(
  vocabulary: Vocabulary,
  docs: readonly (readonly string[] | undefined)[],
): FieldPostings {
  const n = docs.length;
  const present = new Uint8Array(n);
  const lengths = new Int32Array(n);
  const docStart = new Int32Array(n + 1);
  const terms: number[] = [];
  const counts: number[] = [];
  const local = new Map<number, number>();
  for (let doc = 0; doc < n; doc++) {
    const list = docs[doc];
    if (list) {
      present[doc] = 1;
      lengths[doc] = list.length;
      local.clear();
      for (const term of list) {
        const id = vocabulary.id(term);
        local.set(id, (local.get(id) ?? 0) + 1);
      }
      for (const [id, count] of local) {
        terms.push(id);
        counts.push(count);
      }
    }
    docStart[doc + 1] = terms.length;
  }
  return postingsOf(present, lengths, docStart, Int32Array.from(terms), Int32Array.from(counts));
}

function postingsOf(
  present: Uint8Array,
  lengths: Int32Array,
  docStart: Int32Array,
  docTerms: Int32Array,
  docCounts: Int32Array,
): FieldPostings {
  const slots = new Map<number, number>();
  const sizes: number[] = [];
  for (const id of docTerms) {
    const slot = slots.get(id);
    if (slot === undefined) {
      slots.set(id, sizes.length);
      sizes.push(1);
    } else sizes[slot]!++;
  }
  const postStart = new Int32Array(sizes.length + 1);
  for (let s = 0; s < sizes.length; s++) postStart[s + 1] = postStart[s]! + sizes[s]!;
  const fill = postStart.slice(0, sizes.length);
  const postDocs = new Int32Array(docTerms.length);
  const postCounts = new Int32Array(docTerms.length);
  for (let doc = 0; doc + 1 < docStart.length; doc++) {
    for (let i = docStart[doc]!; i < docStart[doc + 1]!; i++) {
      const at = fill[slots.get(docTerms[i]!)!]!++;
      postDocs[at] = doc;
      postCounts[at] = docCounts[i]!;
    }
  }
  return { present, lengths, docStart, docTerms, docCounts, slots, postStart, postDocs, postCounts };
}

/** The postings of the given documents of several fields' segments, in order, as one. */
export function mergeFields(parts: { field: FieldPostings; docs: Int32Array }[]): FieldPostings {
  const n = parts.reduce((sum, part) => sum + part.docs.length, 0);
  const present = new Uint8Array(n);
  const lengths = new Int32Array(n);
  const docStart = new Int32Array(n + 1);
  let total = 0;
  for (const { field, docs } of parts)
    for (const doc of docs) total += field.docStart[doc + 1]! - field.docStart[doc]!;
  const docTerms = new Int32Array(total);
  const docCounts = new Int32Array(total);
  let at = 0;
  let out = 0;
  for (const { field, docs } of parts) {
    for (const doc of docs) {
      present[out] = field.present[doc]!;
      lengths[out] = field.lengths[doc]!;
      const start = field.docStart[doc]!;
      const end = field.docStart[doc + 1]!;
      docTerms.set(field.docTerms.subarray(start, end), at);
      docCounts.set(field.docCounts.subarray(start, end), at);
      at += end - start;
      docStart[++out] = at;
    }
  }
  return postingsOf(present, lengths, docStart, docTerms, docCounts);
}

/** A field's statistics over the live documents of every segment. */
export class FieldStats {
  /** Live documents holding the field. */
  documents = 0;
  /** Their terms, summed. */
  terms = 0;
  /** Live documents holding each term id. */
  frequencies = new Int32Array(1024);

  /** Counts (`sign` 1) or uncounts (-1) a document of the field. */
  apply(field: FieldPostings, doc: number, sign: 1 | -1): void {
    if (!field.present[doc]) return;
    this.documents += sign;
    this.terms += sign * field.lengths[doc]!;
    for (let i = field.docStart[doc]!; i < field.docStart[doc + 1]!; i++) {
      const id = field.docTerms[i]!;
      if (id >= this.frequencies.length) {
        const grown = new Int32Array(Math.max(id + 1, this.frequencies.length * 2));
        grown.set(this.frequencies);
        this.frequencies = grown;
      }
      this.frequencies[id]! += sign;
    }
  }

  frequency(id: number): number {
    return id < this.frequencies.length ? this.frequencies[id]! : 0;
  }
}

/** A query term's weight in a field: its id and idf, and the field's average length. */
interface Weighted {
  id: number;
  idf: number;
}

/** The weights of the query's terms in a field (a repeated term once per occurrence); empty: nothing matches. */
export function queryWeights(
  vocabulary: Vocabulary,
  stats: FieldStats,
  terms: readonly string[],
): Weighted[] {
  const weights: Weighted[] = [];
  const n = stats.documents;
  for (const term of terms) {
    const id = vocabulary.find(term);
    if (id === undefined) continue;
    const df = stats.frequency(id);
    if (df <= 0) continue;
    weights.push({ id, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) });
  }
  return weights;
}

const termScore = (idf: number, tf: number, length: number, average: number) =>
  (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / average));

/** Per-segment arrays one text query fills and leaves cleared: scores without allocating per query. */
export class TextScratch {
  readonly best: Float64Array;
  readonly field: Float64Array;
  readonly matched: Uint8Array;
  readonly touched: Int32Array;
  /** Documents in `touched` (matched by some field so far). */
  count = 0;
  private readonly fieldTouched: Int32Array;

  constructor(size: number) {
    this.best = new Float64Array(size);
    this.field = new Float64Array(size);
    this.matched = new Uint8Array(size);
    this.touched = new Int32Array(size);
    this.fieldTouched = new Int32Array(size);
  }

  /**
   * Adds a field's BM25 scores of the live documents (or of `only`): a document keeps its best field.
   */
  scoreField(
    field: FieldPostings,
    stats: FieldStats,
    weights: readonly Weighted[],
    live: Uint8Array,
    only?: Int32Array,
  ): void {
    if (weights.length === 0 || stats.documents === 0) return;
    const average = stats.terms / stats.documents || 1;
    const scores = this.field;
    const touched = this.fieldTouched;
    let count = 0;
    if (only) {
      for (const doc of only) {
        if (!live[doc] || !field.present[doc]) continue;
        let sum = 0;
        for (const { id, idf } of weights) {
          for (let i = field.docStart[doc]!; i < field.docStart[doc + 1]!; i++) {
            if (field.docTerms[i] !== id) continue;
            sum += termScore(idf, field.docCounts[i]!, field.lengths[doc]!, average);
            break;
          }
        }
        if (sum > 0 && scores[doc] === 0) touched[count++] = doc;
        scores[doc] = scores[doc]! + sum;
      }
    } else {
      for (const { id, idf } of weights) {
        const slot = field.slots.get(id);
        if (slot === undefined) continue;
        for (let i = field.postStart[slot]!; i < field.postStart[slot + 1]!; i++) {
          const doc = field.postDocs[i]!;
          if (!live[doc]) continue;
          if (scores[doc] === 0) touched[count++] = doc;
          scores[doc] = scores[doc]! + termScore(idf, field.postCounts[i]!, field.lengths[doc]!, average);
        }
      }
    }
    for (let k = 0; k < count; k++) {
      const doc = touched[k]!;
      const score = scores[doc]!;
      scores[doc] = 0;
      if (!this.matched[doc]) {
        this.matched[doc] = 1;
        this.best[doc] = score;
        this.touched[this.count++] = doc;
      } else if (score > this.best[doc]!) this.best[doc] = score;
    }
  }

  /** The documents matched and their scores; clears the arrays for the next query. */
  drain(visit: (doc: number, score: number) => void): void {
    for (let k = 0; k < this.count; k++) {
      const doc = this.touched[k]!;
      visit(doc, this.best[doc]!);
      this.best[doc] = 0;
      this.matched[doc] = 0;
    }
    this.count = 0;
  }
}
