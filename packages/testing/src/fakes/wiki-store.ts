/**
 * An in-memory wiki store over the in-memory search database: a tenant's pages are rows (copies) of its
 * deployed wiki table, and writes of one page run one after another through the given locks, as the LanceDB
 * adapter's do.
 */
import {
  applyChanges,
  holdAll,
  lockOf,
  type PageChange,
  PageIndex,
  ProcessPageLocks,
  type StoredPage,
  type WikiStore,
} from '@tessera/wiki';
import type { InMemorySearchDatabase } from './search';

function pageOf(row: Record<string, unknown>): StoredPage {
  const { document_id: _id, ...page } = structuredClone(row);
  return page as unknown as StoredPage;
}

export class InMemoryWikiStore implements WikiStore {
  private readonly locks = new ProcessPageLocks();

  constructor(readonly db: InMemorySearchDatabase) {}

  private pages(schema: string): StoredPage[] {
    const table = this.db.table(schema);
    return table ? [...table.rows.values()].map(pageOf) : [];
  }

  async get(schema: string, slug: string) {
    const row = this.db.table(schema)?.rows.get(slug);
    return row ? pageOf(row) : undefined;
  }

  async list(schema: string) {
    return this.pages(schema);
  }

  async search(schema: string, query: string, limit: number) {
    const index = new PageIndex(schema, 0);
    for (const page of this.pages(schema)) index.set(page);
    return index.search(query, limit);
  }

  async update(
    schema: string,
    slug: string,
    change: (current: StoredPage | undefined) => StoredPage | undefined,
  ) {
    return (await this.updateMany(schema, [{ slug, change }])).get(slug);
  }

  updateMany(schema: string, changes: readonly PageChange[]) {
    const slugs = [...new Set(changes.map((change) => change.slug))];
    return holdAll(this.locks, schema, slugs, async () => {
      const table = this.db.requireTable(schema);
      const current = new Map<string, StoredPage>();
      for (const slug of slugs) {
        const page = await this.get(schema, slug);
        if (page) current.set(slug, page);
      }
      // A turn of the event loop between read and write, as a real store has: a missing lock would show.
      await new Promise((resolve) => setImmediate(resolve));
      const { pages, changed } = applyChanges(current, changes);
      for (const slug of changed)
        table.rows.set(slug, structuredClone({ document_id: slug, ...pages.get(slug)! }));
      if (changed.size > 0) table.version++;
      return new Map([...pages].map(([slug, page]) => [slug, structuredClone(page)]));
    });
  }

  remove(schema: string, slug: string) {
    return this.locks.hold(schema, lockOf(slug), async () => {
      const table = this.db.table(schema);
      if (!table?.rows.delete(slug)) return false;
      table.version++;
      return true;
    });
  }

  async load(schema: string, pages: readonly StoredPage[]) {
    const table = this.db.requireTable(schema);
    for (const page of pages) table.rows.set(page.slug, structuredClone({ document_id: page.slug, ...page }));
    table.version++;
  }

  async purge(): Promise<void> {}
}
