/**
 * The LanceDB adapter of the wiki store: one row a page in the tenant's wiki table (`document_id` = slug).
 * A write holds the page's lock (DynamoDB lease rows in production) around its read, change and merge-insert,
 * which is what makes concurrent saves to one page from any number of processes lose nothing: LanceDB has no
 * conditional write of its own. Searches run over an in-memory BM25 index of the table's version, rebuilt
 * when another writer moved the table on and patched in place after this process's own writes.
 */
import type { Table } from '@lancedb/lancedb';
import {
  documentTable,
  type LanceDatabase,
  lanceMaintenance,
  type SchemaTemplate,
  sqlString,
} from '@tessera/search';
import { holdAll, lockOf, type PageLocks } from './locks';
import { applyChanges, type PageChange, type StoredPage, type WikiStore } from './store';
import { PageIndex } from './text-index';

const COLUMNS = [
  'slug',
  'title',
  'kind',
  'content',
  'entities',
  'agent_name',
  'query',
  'sources',
  'cross_refs',
  'created_at',
  'updated_at',
  'version',
];

const list = (value: unknown): string[] =>
  value === null || value === undefined ? [] : [...(value as Iterable<unknown>)].map(String);

function pageOf(row: Record<string, unknown>): StoredPage {
  return {
    slug: String(row.slug),
    title: String(row.title ?? ''),
    kind: String(row.kind ?? 'session') as StoredPage['kind'],
    content: String(row.content ?? ''),
    entities: list(row.entities),
    agent_name: row.agent_name === null || row.agent_name === undefined ? null : String(row.agent_name),
    query: row.query === null || row.query === undefined ? null : String(row.query),
    sources: list(row.sources),
    cross_refs: list(row.cross_refs),
    created_at: Number(row.created_at ?? 0),
    updated_at: Number(row.updated_at ?? 0),
    version: Number(row.version ?? 0),
  };
}

const rowOf = (page: StoredPage) => ({ document_id: page.slug, ...page, tags: [] as string[] });

export class LanceWikiStore implements WikiStore {
  private readonly indexes = new Map<string, Promise<PageIndex>>();

  constructor(
    readonly db: LanceDatabase,
    private readonly template: SchemaTemplate,
    private readonly locks: PageLocks,
  ) {}

  private async read(table: Table, where?: string): Promise<StoredPage[]> {
    let query = table.query().select(COLUMNS);
    if (where) query = query.where(where);
    return ((await query.toArray()) as Record<string, unknown>[]).map(pageOf);
  }

  async get(schema: string, slug: string): Promise<StoredPage | undefined> {
    const table = await this.db.openTable(schema);
    if (!table) return undefined;
    const [page] = await this.read(table, `document_id = ${sqlString(slug)}`);
    return page;
  }

  async list(schema: string): Promise<StoredPage[]> {
    const table = await this.db.openTable(schema);
    return table ? this.read(table) : [];
  }

  private async indexOf(schema: string, table: Table): Promise<PageIndex> {
    const identity = this.db.identity(table);
    const version = await table.version();
    const kept = this.indexes.get(schema);
    const cached = await kept?.catch(() => undefined);
    if (cached && cached.identity === identity && cached.version === version) return cached;
    // Another writer (or compaction) moved the table on: refresh what changed; a new table is read whole.
    const loading =
      cached && cached.identity === identity
        ? this.refresh(table, cached, version)
        : this.readWhole(table, identity, version);
    this.indexes.set(schema, loading);
    loading.catch(() => {
      if (this.indexes.get(schema) === loading) this.indexes.delete(schema);
    });
    return loading;
  }

  private async readWhole(table: Table, identity: string, version: number): Promise<PageIndex> {
    const index = new PageIndex(identity, version);
    for (const page of await this.read(table)) index.set(page);
    return index;
  }

  /**
   * Brings a kept index to `version`: each page's slug, version and time are read (small), and only pages
   * that are new or changed are read whole and indexed again; pages gone are dropped. A compaction, which
   * changes no page, costs the one light read.
   */
  private async refresh(table: Table, index: PageIndex, version: number): Promise<PageIndex> {
    const stamps = (await table.query().select(['slug', 'version', 'updated_at']).toArray()) as Record<
      string,
      unknown
    >[];
    const live = new Set<string>();
    const changed: string[] = [];
    for (const stamp of stamps) {
      const slug = String(stamp.slug);
      live.add(slug);
      const known = index.pages.get(slug);
      if (
        !known ||
        known.version !== Number(stamp.version) ||
        known.updated_at !== Number(stamp.updated_at)
      ) {
        changed.push(slug);
      }
    }
    for (const slug of [...index.pages.keys()]) if (!live.has(slug)) index.delete(slug);
    for (let start = 0; start < changed.length; start += 500) {
      const slugs = changed
        .slice(start, start + 500)
        .map(sqlString)
        .join(', ');
      for (const page of await this.read(table, `document_id IN (${slugs})`)) index.set(page);
    }
    index.version = version;
    return index;
  }

  async search(schema: string, query: string, limit: number) {
    const table = await this.db.openTable(schema);
    if (!table) return [];
    return (await this.indexOf(schema, table)).search(query, limit);
  }

  /** After this process's own commit: the kept index follows it when nobody else wrote meanwhile. */
  private async patch(schema: string, table: Table, before: number, apply: (index: PageIndex) => void) {
    const kept = await this.indexes.get(schema)?.catch(() => undefined);
    if (!kept) return;
    const version = await table.version();
    if (kept.identity === this.db.identity(table) && kept.version === before && version === before + 1) {
      apply(kept);
      kept.version = version;
    } else if (kept.version !== version) {
      this.indexes.delete(schema);
    }
  }

  async update(
    schema: string,
    slug: string,
    change: (current: StoredPage | undefined) => StoredPage | undefined,
  ): Promise<StoredPage | undefined> {
    return (await this.updateMany(schema, [{ slug, change }])).get(slug);
  }

  updateMany(schema: string, changes: readonly PageChange[]): Promise<Map<string, StoredPage | undefined>> {
    const slugs = new Set(changes.map((change) => change.slug));
    return holdAll(this.locks, schema, slugs, async () => {
      const table = await this.db.openTable(schema);
      if (!table) throw new Error(`Wiki schema ${schema} is not deployed`);
      const current = new Map<string, StoredPage>();
      const listed = [...slugs];
      for (let start = 0; start < listed.length; start += 500) {
        const names = listed
          .slice(start, start + 500)
          .map(sqlString)
          .join(', ');
        for (const page of await this.read(table, `document_id IN (${names})`)) current.set(page.slug, page);
      }
      const { pages, changed } = applyChanges(current, changes);
      if (changed.size === 0) return pages;
      const written = [...changed].map((slug) => pages.get(slug)!);
      const before = await table.version();
      const rows = documentTable(this.template, written.map(rowOf)) as never;
      // Under the pages' locks nobody else writes them: new pages only are an append, which reads nothing.
      if (written.some((page) => current.has(page.slug))) {
        await table.mergeInsert('document_id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
      } else {
        await table.add(rows);
      }
      lanceMaintenance(this.db).touch(schema);
      await this.patch(schema, table, before, (index) => {
        for (const page of written) index.set(page);
      });
      return pages;
    });
  }

  remove(schema: string, slug: string): Promise<boolean> {
    return this.locks.hold(schema, lockOf(slug), async () => {
      const table = await this.db.openTable(schema);
      if (!table) return false;
      const [current] = await this.read(table, `document_id = ${sqlString(slug)}`);
      if (!current) return false;
      const before = await table.version();
      await table.delete(`document_id = ${sqlString(slug)}`);
      lanceMaintenance(this.db).touch(schema);
      await this.patch(schema, table, before, (index) => index.delete(slug));
      return true;
    });
  }

  async load(schema: string, pages: readonly StoredPage[]): Promise<void> {
    const table = await this.db.openTable(schema);
    if (!table) throw new Error(`Wiki schema ${schema} is not deployed`);
    for (let start = 0; start < pages.length; start += 2000) {
      await table
        .mergeInsert('document_id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute(documentTable(this.template, pages.slice(start, start + 2000).map(rowOf)) as never);
    }
    lanceMaintenance(this.db).touch(schema);
  }

  async purge(schema: string): Promise<void> {
    this.indexes.delete(schema);
    await this.locks.purge(schema);
  }
}
