/** The wiki routes' domain: tenant guard first, then the tenant's wiki schema (deployed on first save or search). */
import type { Wiki } from '@tessera/api';
import { NotFoundError, type TenantId, tenantSchemaName } from '@tessera/core';
import {
  ensureTenantSchema,
  guardTenant,
  requireTenant,
  type TenancyDeps,
  type TenantRef,
} from '@tessera/tenancy';
import {
  entitiesOf,
  INDEX_SLUG,
  indexAfter,
  iso,
  lint,
  sessionPage,
  sessionSlug,
  snippet,
  topicAfterSession,
} from './pages';
import type { PageChange, StoredPage, WikiStore } from './store';

export const WIKI_SCHEMA = 'wiki';

export interface WikiDeps {
  tenancy: TenancyDeps;
  store: WikiStore;
  now: () => number;
}

export const wikiSchemaOf = (tenant: TenantId) => tenantSchemaName(WIKI_SCHEMA, tenant);

export function publicPage(page: StoredPage): Wiki.WikiPage {
  return { ...page, created_at: iso(page.created_at), updated_at: iso(page.updated_at) };
}

export interface SaveInput {
  query: string;
  response: Record<string, unknown>;
  entities: readonly unknown[];
  agent_name: string;
}

/** A save that stands for one agent run: repeating it (a redelivered message) writes nothing more. */
export interface SaveOnce {
  /** The run's id: the session's slug is made of it, and a session already saved under it ends the save. */
  runId: string;
  /** When the run completed: the session's time. */
  at: number;
}

/** One session to save: what was asked and answered, and, for an agent run's filing, the run (`once`). */
export interface SessionSave {
  input: SaveInput;
  once?: SaveOnce;
}

/**
 * Saves a session: its own page, a topic page per entity and, when a topic page is new, the index page, all
 * in one write (see `saveSessions`).
 */
export async function saveSession(
  deps: WikiDeps,
  tenant: TenantRef,
  input: SaveInput,
  once?: SaveOnce,
): Promise<Wiki.SaveResult> {
  const [saved] = await saveSessions(deps, tenant, [{ input, once }]);
  return saved!;
}

/**
 * Saves sessions of one tenant in one write of its wiki: each session's page, the topic page of each entity
 * it mentions, and the index page when a topic page is new. The pages change together under their locks, so
 * a session page under a run's slug means its whole save is done: a save `once` whose session page exists
 * (the same run filed again) changes nothing. The index is locked only when a session names entities.
 */
export async function saveSessions(
  deps: WikiDeps,
  tenant: TenantRef,
  saves: readonly SessionSave[],
): Promise<Wiki.SaveResult[]> {
  const guarded = await guardTenant(deps.tenancy, tenant);
  const schema = await ensureTenantSchema(deps.tenancy, guarded, WIKI_SCHEMA);
  const sessions = saves.map(({ input, once }) => {
    const now = once?.at ?? deps.now();
    const entities = entitiesOf(input.entities);
    const slug = once ? sessionSlug(now, input.query, once.runId) : sessionSlug(now, input.query);
    const page = sessionPage({
      slug,
      query: input.query,
      response: input.response,
      agentName: input.agent_name,
      entities,
      now,
    });
    return { page, entities, now, once: once !== undefined };
  });
  const filed = new Set<string>();
  const created: StoredPage[] = [];
  // Sessions first: a run's session saved before (its filing delivered again) leaves its topics as they are.
  const changes: PageChange[] = sessions.map(({ page, once }) => ({
    slug: page.slug,
    change: (current) => {
      if (current && once) {
        filed.add(page.slug);
        return undefined;
      }
      return page;
    },
  }));
  for (const { page, entities, now } of sessions) {
    for (const entity of entities) {
      changes.push({
        slug: entity.slug,
        change: (current) => {
          if (filed.has(page.slug)) return undefined;
          const next = topicAfterSession(current, entity, page, entities, now);
          if (!current) created.push(next);
          return next;
        },
      });
    }
  }
  if (sessions.some(({ entities }) => entities.length > 0)) {
    const now = Math.max(...sessions.map((session) => session.now));
    changes.push({
      slug: INDEX_SLUG,
      change: (current) => (created.length > 0 ? indexAfter(current, { added: created }, now) : undefined),
    });
  }
  await deps.store.updateMany(schema, changes);
  return sessions.map(({ page, entities }) => ({
    status: 'saved' as const,
    slug: page.slug,
    topics: entities.map((entity) => entity.slug),
  }));
}

export async function searchWiki(
  deps: WikiDeps,
  tenantId: string,
  query: string,
  topK: number,
): Promise<Wiki.SearchResult> {
  const guarded = await requireTenant(deps.tenancy, tenantId);
  const schema = await ensureTenantSchema(deps.tenancy, guarded, WIKI_SCHEMA);
  const hits = await deps.store.search(schema, query, topK);
  const results = hits.map(({ page, score }) => ({
    slug: page.slug,
    title: page.title,
    kind: page.kind,
    snippet: snippet(page, query),
    score,
  }));
  return { results, count: results.length };
}

const notFound = (slug: string) => new NotFoundError(`Wiki page '${slug}' not found`);
/** Every slug a page can have (node ids, `session_…`, `index`); anything else names no page. */
const SLUG = /^[a-z0-9_]{1,300}$/;

export async function getPage(deps: WikiDeps, tenantId: string, slug: string): Promise<Wiki.WikiPage> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const page = SLUG.test(slug) ? await deps.store.get(wikiSchemaOf(tenant), slug) : undefined;
  if (!page) throw notFound(slug);
  return publicPage(page);
}

export async function deletePage(deps: WikiDeps, tenantId: string, slug: string) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const schema = wikiSchemaOf(tenant);
  if (!SLUG.test(slug) || !(await deps.store.remove(schema, slug))) throw notFound(slug);
  if (slug !== INDEX_SLUG) {
    await deps.store.update(schema, INDEX_SLUG, (current) =>
      current ? indexAfter(current, { removed: slug }, deps.now()) : undefined,
    );
  }
  return { status: 'deleted' as const, slug };
}

export async function wikiIndex(deps: WikiDeps, tenantId: string): Promise<Wiki.WikiIndex> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const pages = (await deps.store.list(wikiSchemaOf(tenant))).sort(
    (a, b) => b.updated_at - a.updated_at || (a.slug < b.slug ? -1 : 1),
  );
  return {
    pages: pages.map((p) => ({ slug: p.slug, title: p.title, kind: p.kind, updated_at: iso(p.updated_at) })),
    total_count: pages.length,
  };
}

export async function lintWiki(deps: WikiDeps, tenantId: string): Promise<Wiki.WikiLint> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  return lint(await deps.store.list(wikiSchemaOf(tenant)), deps.now());
}
