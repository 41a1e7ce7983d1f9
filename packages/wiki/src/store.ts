/** The wiki store port: a tenant's pages in its wiki schema, each written under its slug's lock. */
import type { Wiki } from '@tessera/api';

/** A page as stored: the API's page with times in epoch milliseconds. */
export interface StoredPage extends Omit<Wiki.WikiPage, 'created_at' | 'updated_at'> {
  created_at: number;
  updated_at: number;
}

/** One page's change in `updateMany`: its next state from its current one (undefined: no change). */
export interface PageChange {
  slug: string;
  change: (current: StoredPage | undefined) => StoredPage | undefined;
}

/** Applies `changes` in order to the pages `current` holds: the pages after them, and the slugs changed. */
export function applyChanges(
  current: ReadonlyMap<string, StoredPage>,
  changes: readonly PageChange[],
): { pages: Map<string, StoredPage | undefined>; changed: Set<string> } {
  const pages = new Map<string, StoredPage | undefined>(current);
  const changed = new Set<string>();
  for (const { slug, change } of changes) {
    const next = change(pages.get(slug));
    if (!next) {
      if (!pages.has(slug)) pages.set(slug, undefined);
      continue;
    }
    pages.set(slug, next);
    changed.add(slug);
  }
  return { pages, changed };
}

export interface WikiStore {
  /** The page of `slug`, or undefined (also when the schema is not deployed). */
  get(schema: string, slug: string): Promise<StoredPage | undefined>;
  /** Every page (none when the schema is not deployed). */
  list(schema: string): Promise<StoredPage[]>;
  /** BM25 over titles and contents: the best `limit` pages, best first. */
  search(schema: string, query: string, limit: number): Promise<{ page: StoredPage; score: number }[]>;
  /**
   * Reads the page, asks `change` for its next state and stores that, holding the slug's lock for the whole
   * step: across every process, concurrent updates of one page run one after another, so none is lost.
   * `change` answering undefined writes nothing. Answers the page as it then is. The schema must be deployed.
   */
  update(
    schema: string,
    slug: string,
    change: (current: StoredPage | undefined) => StoredPage | undefined,
  ): Promise<StoredPage | undefined>;
  /**
   * Several `update`s as one write: the locks of every slug held, the pages read at once, each `change` asked
   * in the order given (a slug named twice sees its first change's page), and every changed page stored in
   * one commit, so the pages change together or not at all. Answers each slug's page as it then is.
   */
  updateMany(schema: string, changes: readonly PageChange[]): Promise<Map<string, StoredPage | undefined>>;
  /** Removes the page under its lock; false when there was none. */
  remove(schema: string, slug: string): Promise<boolean>;
  /** Writes pages as given, without locks: a bulk load (benchmarks, restores), never beside live writers. */
  load(schema: string, pages: readonly StoredPage[]): Promise<void>;
  /** Forgets a schema's locks and what is kept of it in memory (its tenant is being removed). */
  purge(schema: string): Promise<void>;
}
