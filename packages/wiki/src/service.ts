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
import type { StoredPage, WikiStore } from './store';

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

/**
 * Saves a session: a topic page per entity, the index page, then its own page, which is written last so
 * that, for a save `once` per run, a session page under the run's slug means the whole save is done.
 */
export async function saveSession(
  deps: WikiDeps,
  tenant: TenantRef,
  input: SaveInput,
  once?: SaveOnce,
): Promise<Wiki.SaveResult> {
  const guarded = await guardTenant(deps.tenancy, tenant);
  const schema = await ensureTenantSchema(deps.tenancy, guarded, WIKI_SCHEMA);
  const now = once?.at ?? deps.now();
  const entities = entitiesOf(input.entities);
  const slug = once ? sessionSlug(now, input.query, once.runId) : sessionSlug(now, input.query);
  const saved = { status: 'saved' as const, slug, topics: entities.map((e) => e.slug) };
  if (once && (await deps.store.get(schema, slug))) return saved;
  const session = sessionPage({
    slug,
    query: input.query,
    response: input.response,
    agentName: input.agent_name,
    entities,
    now,
  });
  const created: StoredPage[] = [];
  await Promise.all(
    entities.map((entity) =>
      deps.store.update(schema, entity.slug, (current) => {
        const next = topicAfterSession(current, entity, session, entities, now);
        if (!current) created.push(next);
        return next;
      }),
    ),
  );
  if (created.length > 0) {
    await deps.store.update(schema, INDEX_SLUG, (current) => indexAfter(current, { added: created }, now));
  }
  await deps.store.update(schema, session.slug, () => session);
  return saved;
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
