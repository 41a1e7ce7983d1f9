/**
 * Wiki routes (document 3, clarifications "Wiki, memories, instructions, jobs"): sessions saved as pages in the
 * tenant's wiki schema, a topic page per entity (slug = the entity's graph `node_id`), the index page, search,
 * delete and lint.
 */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';
import { normalizeNodeId } from './graph';

export const PageKind = z.enum(['session', 'topic', 'index']);
export type PageKind = z.infer<typeof PageKind>;

/** The largest page a save may produce: its response, as JSON, in characters. */
export const MAX_RESPONSE_CHARS = 200_000;

export const WikiPage = z
  .object({
    slug: z.string(),
    title: z.string(),
    kind: PageKind,
    content: z.string().meta({ description: 'Markdown; `[[slug]]` links another page.' }),
    entities: z.array(z.string()),
    agent_name: z.string().nullable(),
    query: z.string().nullable(),
    sources: z.array(z.string()),
    cross_refs: z.array(z.string()).meta({ description: 'Slugs of the pages this page links.' }),
    created_at: z.string().meta({ description: 'ISO 8601.' }),
    updated_at: z.string().meta({ description: 'ISO 8601.' }),
    version: z.number().int().meta({ description: 'Counts the writes of the page, from 1.' }),
  })
  .meta({ id: 'WikiPage' });
export type WikiPage = z.infer<typeof WikiPage>;

const EntityRef = z.union([
  z.string().trim().min(1).max(500),
  z.looseObject({
    text: z.string().trim().min(1).max(500).optional(),
    name: z.string().trim().min(1).max(500).optional(),
    label: z.string().max(100).optional(),
  }),
]);

export const SaveRequest = z
  .strictObject({
    tenant_id: z.string(),
    query: z.string().trim().min(1).max(20_000),
    response: z
      .record(z.string(), z.unknown())
      .refine((response) => Object.keys(response).length > 0, { message: 'response is empty' })
      .refine((response) => JSON.stringify(response).length <= MAX_RESPONSE_CHARS, {
        message: `response is over ${MAX_RESPONSE_CHARS} characters as JSON`,
      })
      .meta({
        description: `The agent's answer (an object), at most ${MAX_RESPONSE_CHARS} characters as JSON.`,
      }),
    entities: z
      .array(EntityRef)
      .max(200)
      .default([])
      .meta({ description: 'Names (or `{text|name, label}`); each becomes a topic page, slug its node_id.' }),
    agent_name: z.string().min(1).max(100).default('gateway_agent'),
  })
  .meta({ id: 'WikiSaveRequest' });
export type SaveRequest = z.output<typeof SaveRequest>;

export const SaveResult = z
  .object({
    status: z.literal('saved'),
    slug: z.string().meta({ description: 'The session page.' }),
    topics: z.array(z.string()).meta({ description: 'Slugs of the topic pages the save wrote.' }),
  })
  .meta({ id: 'WikiSaveResult' });
export type SaveResult = z.infer<typeof SaveResult>;

export const SearchRequest = z
  .strictObject({
    tenant_id: z.string(),
    query: z.string().trim().min(1).max(1000),
    top_k: z.number().int().min(1).max(100).default(5),
  })
  .meta({ id: 'WikiSearchRequest' });

export const SearchResult = z
  .object({
    results: z.array(
      z.object({
        slug: z.string(),
        title: z.string(),
        kind: PageKind,
        snippet: z.string(),
        score: z.number(),
      }),
    ),
    count: z.number().int(),
  })
  .meta({ id: 'WikiSearchResult' });
export type SearchResult = z.infer<typeof SearchResult>;

export const PageDeleted = z.object({ status: z.literal('deleted'), slug: z.string() });

export const WikiIndex = z
  .object({
    pages: z.array(z.object({ slug: z.string(), title: z.string(), kind: PageKind, updated_at: z.string() })),
    total_count: z.number().int(),
  })
  .meta({ id: 'WikiIndex' });
export type WikiIndex = z.infer<typeof WikiIndex>;

export const WikiLint = z
  .object({
    orphan: z.array(z.string()).meta({ description: 'Topic pages no other page (the index aside) links.' }),
    stale: z.array(z.string()).meta({ description: 'Pages not updated for 30 days.' }),
    empty: z.array(z.string()).meta({ description: 'Pages whose content is under 50 characters.' }),
    malformed: z.array(z.string()).meta({
      description:
        'Pages without a `# ` title line, with a link to no page, or a topic slug that is no node_id.',
    }),
  })
  .meta({ id: 'WikiLint' });
export type WikiLint = z.infer<typeof WikiLint>;

/** A topic slug is the node_id of its entity's name. */
export const topicSlug = normalizeNodeId;

const tenantQuery = z.object({ tenant_id: z.string() });
const slugPath = z.object({ slug: z.string().min(1).max(300) });
const notFound = plain("`Wiki page '<slug>' not found`, or `Tenant '<id>' not registered.`");

export const save = route({
  id: 'save',
  group: 'wiki',
  method: 'POST',
  route: '/wiki/save',
  summary: 'Save a session to the wiki',
  description:
    "Writes the session page, a topic page for each entity (slug = its node_id; an existing one gains the session and cross-references), and the index page; the tenant's wiki schema is deployed on the first save. Concurrent saves to one topic page each land.",
  body: SaveRequest,
  responses: { 200: { description: 'Saved.', schema: SaveResult } },
  errors: { ...tenantGuard, 503: outage },
});

export const search = route({
  id: 'search',
  group: 'wiki',
  method: 'POST',
  route: '/wiki/search',
  summary: "BM25 search over the tenant's wiki pages (titles and content)",
  body: SearchRequest,
  responses: { 200: { description: 'The best pages first.', schema: SearchResult } },
  errors: { ...tenantGuard, 503: outage },
});

export const getTopic = route({
  id: 'getTopic',
  group: 'wiki',
  method: 'GET',
  route: '/wiki/topic/{slug}',
  summary: 'A wiki page by slug',
  path: slugPath,
  query: tenantQuery,
  responses: { 200: { description: 'The page.', schema: WikiPage } },
  errors: { ...tenantGuard, 404: notFound, 503: outage },
});

export const deleteTopic = route({
  id: 'deleteTopic',
  group: 'wiki',
  method: 'DELETE',
  route: '/wiki/topic/{slug}',
  summary: 'Delete a wiki page',
  path: slugPath,
  query: tenantQuery,
  responses: { 200: { description: 'Deleted.', schema: PageDeleted } },
  errors: { ...tenantGuard, 404: notFound, 503: outage },
});

export const index = route({
  id: 'index',
  group: 'wiki',
  method: 'GET',
  route: '/wiki/index',
  summary: "Every page of the tenant's wiki, newest first",
  query: tenantQuery,
  responses: { 200: { description: 'The pages.', schema: WikiIndex } },
  errors: { ...tenantGuard, 503: outage },
});

export const lint = route({
  id: 'lint',
  group: 'wiki',
  method: 'GET',
  route: '/wiki/lint',
  summary: 'Orphan, stale, empty and malformed pages',
  query: tenantQuery,
  responses: { 200: { description: 'Slugs of each finding.', schema: WikiLint } },
  errors: { ...tenantGuard, 503: outage },
});
