/**
 * BM25 over node names and descriptions, in memory beside the graph: node text is small, and scoring it
 * here keeps node search off the table's full-text index, which edge rows would otherwise weigh down.
 */
import { tokenize } from '@tessera/encoders';

const K1 = 1.2;
const B = 0.75;

export class NodeTextIndex {
  private readonly postings = new Map<string, Map<string, number>>();
  private readonly lengths = new Map<string, number>();
  private readonly terms = new Map<string, string[]>();
  private totalLength = 0;

  /** Indexes (or re-indexes) a node's text. */
  set(nodeId: string, text: string): void {
    this.remove(nodeId);
    const tokens = tokenize(text);
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let list = this.postings.get(term);
      if (!list) {
        list = new Map();
        this.postings.set(term, list);
      }
      list.set(nodeId, tf);
    }
    this.terms.set(nodeId, [...counts.keys()]);
    this.lengths.set(nodeId, tokens.length);
    this.totalLength += tokens.length;
  }

  private remove(nodeId: string): void {
    const terms = this.terms.get(nodeId);
    if (!terms) return;
    for (const term of terms) this.postings.get(term)?.delete(nodeId);
    this.totalLength -= this.lengths.get(nodeId) ?? 0;
    this.lengths.delete(nodeId);
    this.terms.delete(nodeId);
  }

  /**
   * BM25 scores of the nodes matching the query's terms, best first, at most `limit`. In a large graph,
   * terms in more than half of the nodes carry almost no weight and are left out, unless the query has
   * nothing else.
   */
  search(query: string, limit: number): { id: string; score: number }[] {
    const documents = this.lengths.size;
    if (documents === 0) return [];
    const average = this.totalLength / documents || 1;
    const lists = [...new Set(tokenize(query))]
      .map((term) => this.postings.get(term))
      .filter((list): list is Map<string, number> => list !== undefined && list.size > 0);
    const selective = documents >= 1000 ? lists.filter((list) => list.size <= documents / 2) : lists;
    const scores = new Map<string, number>();
    for (const list of selective.length > 0 ? selective : lists) {
      const idf = Math.log(1 + (documents - list.size + 0.5) / (list.size + 0.5));
      for (const [id, tf] of list) {
        const length = this.lengths.get(id) ?? 0;
        const score = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / average));
        scores.set(id, (scores.get(id) ?? 0) + score);
      }
    }
    // The best `limit` without sorting every match: a floor rises as better ones arrive.
    let best: { id: string; score: number }[] = [];
    let floor = Number.NEGATIVE_INFINITY;
    for (const [id, score] of scores) {
      if (score < floor) continue;
      best.push({ id, score });
      if (best.length >= limit * 2) {
        best = best.sort(byScore).slice(0, limit);
        floor = best[best.length - 1]!.score;
      }
    }
    return best.sort(byScore).slice(0, limit);
  }
}

const byScore = (a: { id: string; score: number }, b: { id: string; score: number }) =>
  b.score - a.score || (a.id < b.id ? -1 : 1);
