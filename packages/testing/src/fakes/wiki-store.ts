/**
 * An in-memory wiki store over the in-memory search database: a tenant's pages are rows (copies) of its
 * deployed wiki table, and writes of one page run one after another through the given locks, as the LanceDB
 * adapter's do.
 */
import { KeyedSerializer } from '@tessera/core';
import { PageIndex, type StoredPage, type WikiStore } from '@tessera/wiki';
import type { InMemorySearchDatabase } from './search';

function pageOf(row: Record<string, unknown>): StoredPage {
  const { document_id: _id, ...page } = structuredClone(row);
  return page as unknown as StoredPage;
}

export class InMemoryWikiStore implements WikiStore {
  private readonly locks = new KeyedSerializer();

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

  update(schema: string, slug: string, change: (current: StoredPage | undefined) => StoredPage | undefined) {
    return this.locks.run(`${schema}\u0000${slug}`, async () => {
      const table = this.db.requireTable(schema);
      // A turn of the event loop between read and write, as a real store has: a missing lock would show.
      const current = await this.get(schema, slug);
      await new Promise((resolve) => setImmediate(resolve));
      const next = change(current);
      if (!next) return current;
      table.rows.set(slug, structuredClone({ document_id: slug, ...next }));
      table.version++;
      return structuredClone(next);
    });
  }

  remove(schema: string, slug: string) {
    return this.locks.run(`${schema}\u0000${slug}`, async () => {
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
