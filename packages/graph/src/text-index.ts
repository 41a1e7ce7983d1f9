/**
 * BM25 over node names and descriptions, in memory beside the graph: node text is small, and scoring it
 * here keeps node search off the table's full-text index, which edge rows would otherwise weigh down.
 * Nodes are numbered, so scoring accumulates into a typed array rather than a map.
 */
import { tokenize } from '@tessera/encoders';

const K1 = 1.2;
const B = 0.75;

export class NodeTextIndex {
  private readonly numbers = new Map<string, number>();
  private readonly ids: string[] = [];
  /** Per term: node numbers and term frequencies, in parallel. */
  private readonly postings = new Map<string, { nodes: number[]; tfs: number[] }>();
  private lengths = new Float64Array(1024);
  private readonly terms: (string[] | undefined)[] = [];
  private documents = 0;
  private totalLength = 0;

  /** Indexes (or re-indexes) a node's text. */
  set(nodeId: string, text: string): void {
    let number = this.numbers.get(nodeId);
    if (number === undefined) {
      number = this.ids.length;
      this.numbers.set(nodeId, number);
      this.ids.push(nodeId);
      if (number >= this.lengths.length) {
        const grown = new Float64Array(this.lengths.length * 2);
        grown.set(this.lengths);
        this.lengths = grown;
      }
    } else {
      this.remove(number);
    }
    const tokens = tokenize(text);
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let list = this.postings.get(term);
      if (!list) {
        list = { nodes: [], tfs: [] };
        this.postings.set(term, list);
      }
      list.nodes.push(number);
      list.tfs.push(tf);
    }
    this.terms[number] = [...counts.keys()];
    this.lengths[number] = tokens.length;
    this.totalLength += tokens.length;
    this.documents++;
  }

  private remove(number: number): void {
    const terms = this.terms[number];
    if (!terms) return;
    for (const term of terms) {
      const list = this.postings.get(term)!;
      const at = list.nodes.indexOf(number);
      if (at >= 0) {
        list.nodes.splice(at, 1);
        list.tfs.splice(at, 1);
      }
    }
    this.totalLength -= this.lengths[number]!;
    this.terms[number] = undefined;
    this.documents--;
  }

  /**
   * BM25 scores of the nodes matching the query's terms, best first, at most `limit`. In a large graph,
   * terms in more than half of the nodes carry almost no weight and are left out, unless the query has
   * nothing else.
   */
  search(query: string, limit: number): { id: string; score: number }[] {
    const documents = this.documents;
    if (documents === 0) return [];
    const average = this.totalLength / documents || 1;
    const lists = [...new Set(tokenize(query))]
      .map((term) => this.postings.get(term))
      .filter(
        (list): list is { nodes: number[]; tfs: number[] } => list !== undefined && list.nodes.length > 0,
      );
    const selective = documents >= 1000 ? lists.filter((list) => list.nodes.length <= documents / 2) : lists;
    const scores = new Float64Array(this.ids.length);
    const touched: number[] = [];
    for (const list of selective.length > 0 ? selective : lists) {
      const df = list.nodes.length;
      const idf = Math.log(1 + (documents - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const node = list.nodes[i]!;
        const tf = list.tfs[i]!;
        if (scores[node] === 0) touched.push(node);
        scores[node]! += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[node]!) / average));
      }
    }
    // The best `limit` without sorting every match: a floor rises as better ones arrive.
    let best: number[] = [];
    let floor = Number.NEGATIVE_INFINITY;
    const order = (a: number, b: number) => scores[b]! - scores[a]! || (this.ids[a]! < this.ids[b]! ? -1 : 1);
    for (const node of touched) {
      if (scores[node]! < floor) continue;
      best.push(node);
      if (best.length >= limit * 2) {
        best = best.sort(order).slice(0, limit);
        floor = scores[best[best.length - 1]!]!;
      }
    }
    return best
      .sort(order)
      .slice(0, limit)
      .map((node) => ({ id: this.ids[node]!, score: scores[node]! }));
  }
}
