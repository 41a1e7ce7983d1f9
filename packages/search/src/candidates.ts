/**
 * Candidate generation for large tables: an inverted index over 16-bit bands of every document token's
 * 128-bit code. A document is a candidate when one of its tokens shares a whole band with a query token;
 * candidates are ordered by how many query tokens they match. Tokens of the same word share every band;
 * tokens a few bits apart share some with high probability.
 */

const BANDS = 8;
const BUCKETS = 1 << 16;

export interface BandIndex {
  documents: number;
  /** Per band: CSR offsets into `postings` by band value (length BUCKETS + 1). */
  offsets: Int32Array[];
  /** Per band: document numbers, each at most once per value. */
  postings: Int32Array[];
  /**
   * Per document, counts a query uses and leaves zeroed again; kept so queries allocate no per-document
   * arrays (whose memory would have the garbage collector run more often).
   */
  scratch?: { hits: Uint16Array; matched: Uint32Array; touched: Int32Array };
}

const bandOf = (words: Uint32Array, token: number, band: number): number => {
  const word = words[token * 4 + (band >> 1)]!;
  return band & 1 ? word >>> 16 : word & 0xffff;
};

/** Builds the index of `documents` documents whose tokens run from `tokenOffsets[d]` to `tokenOffsets[d + 1]`. */
export function buildBandIndex(words: Uint32Array, tokenOffsets: Int32Array, documents: number): BandIndex {
  const offsets: Int32Array[] = [];
  const postings: Int32Array[] = [];
  const seen = new Int32Array(BUCKETS).fill(-1);
  for (let band = 0; band < BANDS; band++) {
    const counts = new Int32Array(BUCKETS + 1);
    seen.fill(-1);
    for (let doc = 0; doc < documents; doc++) {
      for (let t = tokenOffsets[doc]!; t < tokenOffsets[doc + 1]!; t++) {
        const value = bandOf(words, t, band);
        if (seen[value] === doc) continue;
        seen[value] = doc;
        counts[value + 1]!++;
      }
    }
    for (let v = 0; v < BUCKETS; v++) counts[v + 1]! += counts[v]!;
    const fill = counts.slice(0, BUCKETS);
    const list = new Int32Array(counts[BUCKETS]!);
    seen.fill(-1);
    for (let doc = 0; doc < documents; doc++) {
      for (let t = tokenOffsets[doc]!; t < tokenOffsets[doc + 1]!; t++) {
        const value = bandOf(words, t, band);
        if (seen[value] === doc) continue;
        seen[value] = doc;
        list[fill[value]!++] = doc;
      }
    }
    offsets.push(counts);
    postings.push(list);
  }
  return { documents, offsets, postings };
}

/**
 * Up to `limit` documents matching the most query tokens. Posting lists are read shortest first; once
 * `limit` documents are found, lists shared by more than `commonShare` of the documents (they say little,
 * like stop words) are left out.
 */
export function bandCandidates(
  index: BandIndex,
  query: Uint32Array,
  queryTokens: number,
  limit: number,
  commonShare = 0.2,
): Int32Array {
  // Which query tokens each document matched already: one bit a token.
  const words = Math.ceil(queryTokens / 32);
  if (!index.scratch || index.scratch.matched.length < index.documents * words) {
    index.scratch = {
      hits: new Uint16Array(index.documents),
      matched: new Uint32Array(index.documents * Math.max(1, words)),
      touched: new Int32Array(index.documents),
    };
  }
  const scratch = index.scratch;
  const { hits, matched, touched } = scratch;
  let found: number;
  try {
    found = collect(index, query, queryTokens, limit, commonShare, words, scratch);
  } catch (error) {
    hits.fill(0);
    matched.fill(0);
    throw error;
  }
  try {
    return ranked(hits, touched, found, queryTokens, limit);
  } finally {
    for (let i = 0; i < found; i++) {
      const doc = touched[i]!;
      hits[doc] = 0;
      matched.fill(0, doc * words, (doc + 1) * words);
    }
  }
}

function collect(
  index: BandIndex,
  query: Uint32Array,
  queryTokens: number,
  limit: number,
  commonShare: number,
  words: number,
  scratch: NonNullable<BandIndex['scratch']>,
): number {
  const { hits, matched, touched } = scratch;
  // Documents matched so far, in the order first matched, in `touched`.
  let found = 0;
  const common = Math.max(1, Math.floor(index.documents * commonShare));
  const lists: { q: number; band: number; from: number; to: number }[] = [];
  for (let q = 0; q < queryTokens; q++) {
    for (let band = 0; band < BANDS; band++) {
      const value = bandOf(query, q, band);
      const from = index.offsets[band]![value]!;
      const to = index.offsets[band]![value + 1]!;
      if (to > from) lists.push({ q, band, from, to });
    }
  }
  lists.sort((a, b) => a.to - a.from - (b.to - b.from));
  for (const { q, band, from, to } of lists) {
    if (found >= limit && to - from > common) break;
    const list = index.postings[band]!;
    const word = q >> 5;
    const bit = 1 << (q & 31);
    for (let i = from; i < to; i++) {
      const doc = list[i]!;
      const at = doc * words + word;
      if (matched[at]! & bit) continue;
      matched[at] = matched[at]! | bit;
      if (hits[doc] === 0) touched[found++] = doc;
      hits[doc] = hits[doc]! + 1;
    }
  }
  return found;
}

/** The first `limit` of the `found` documents by hits, most first, then in the order found (a counting sort). */
function ranked(
  hits: Uint16Array,
  touched: Int32Array,
  found: number,
  queryTokens: number,
  limit: number,
): Int32Array {
  if (found <= limit) return touched.slice(0, found);
  // Where the documents of each hit count start: after all documents with more hits.
  const start = new Int32Array(queryTokens + 2);
  for (let i = 0; i < found; i++) start[hits[touched[i]!]!]!++;
  let before = 0;
  for (let h = queryTokens; h > 0; h--) {
    const count = start[h]!;
    start[h] = before;
    before += count;
  }
  const out = new Int32Array(limit);
  for (let i = 0; i < found; i++) {
    const doc = touched[i]!;
    const at = start[hits[doc]!]!++;
    if (at < limit) out[at] = doc;
  }
  return out;
}
