/** The wiki store port: a tenant's pages in its wiki schema, each written under its slug's lock. */
import type { Wiki } from '@tessera/api';

/** A page as stored: the API's page with times in epoch milliseconds. */
export interface StoredPage extends Omit<Wiki.WikiPage, 'created_at' | 'updated_at'> {
  created_at: number;
  updated_at: number;
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
  /** Removes the page under its lock; false when there was none. */
  remove(schema: string, slug: string): Promise<boolean>;
  /** Writes pages as given, without locks: a bulk load (benchmarks, restores), never beside live writers. */
  load(schema: string, pages: readonly StoredPage[]): Promise<void>;
  /** Forgets a schema's locks and what is kept of it in memory (its tenant is being removed). */
  purge(schema: string): Promise<void>;
}
