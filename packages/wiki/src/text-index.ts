/** BM25 over the pages of one wiki table version, kept in memory (the graph's node text index, reused). */
import { NodeTextIndex } from '@tessera/graph';
import type { StoredPage } from './store';

export class PageIndex {
  private readonly text = new NodeTextIndex();
  readonly pages = new Map<string, StoredPage>();

  constructor(
    /** The table's name and incarnation. */
    readonly identity: string,
    public version: number,
  ) {}

  set(page: StoredPage): void {
    this.pages.set(page.slug, page);
    this.text.set(page.slug, `${page.title}\n${page.content}`);
  }

  delete(slug: string): void {
    if (!this.pages.delete(slug)) return;
    // The text index keeps no removal of its own: an emptied text matches nothing.
    this.text.set(slug, '');
  }

  search(query: string, limit: number): { page: StoredPage; score: number }[] {
    // Removed pages score nothing, so asking for a few more keeps `limit` live ones in the common case.
    return this.text
      .search(query, limit + 8)
      .flatMap(({ id, score }) => {
        const page = this.pages.get(id);
        return page && score > 0 ? [{ page, score }] : [];
      })
      .slice(0, limit);
  }
}
