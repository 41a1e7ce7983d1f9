/** Content search for a tenant: one profile, or several fused by reciprocal rank fusion. */
import type { Search } from '@tessera/api';
import { BadRequestError, parseTenantId, tenantSchemaName } from '@tessera/core';
import { type Profile, type RankingStrategy, rank, reciprocalRankFusion, type Scored } from '@tessera/search';
import { type GuardedTenant, guardTenant, requireTenant, type TenantRef } from '@tessera/tenancy';
import type { ContentDeps } from './deps';
import { requireEncoder } from './encoders';
import { resolveProfile } from './indexing';

export type SearchRequest = Search.SearchRequest;
export type SearchResult = Search.SearchResult;

const SNIPPET = 240;
const HIDDEN = new Set(['document_id', 'source_doc_id', 'embedding', 'embedding_binary', 'dense_embedding']);

/** A window of the document's text around the first query word it contains. */
export function snippet(text: string, query: string): string {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  const lower = text.toLowerCase();
  const hit =
    words
      .map((w) => lower.indexOf(w))
      .filter((i) => i >= 0)
      .sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, hit - SNIPPET / 3);
  const cut = text
    .slice(start, start + SNIPPET)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${cut}${start + SNIPPET < text.length ? '…' : ''}`;
}

const HEADING_MARK = /^[ \t]{0,3}#{1,6}[ \t]+/gm;

/**
 * The text a hit shows, which its snippet is cut from (ranking reads the indexed fields, not this): its
 * profile's text fields joined, except that a titled document shows its body without the title in front
 * (the title stays in `fields.title`), without Markdown heading marks, and without a first heading that
 * repeats the title. A document with nothing but a title shows its title; untitled ones (code) as they are.
 */
export function hitText(row: Record<string, unknown>, textFields: readonly string[]): string {
  const value = (name: string) => {
    const field = row[name];
    return typeof field === 'string' && field.trim() !== '' ? field : undefined;
  };
  const title = textFields.includes('title') ? value('title') : undefined;
  const body = textFields
    .filter((name) => name !== 'title')
    .map(value)
    .filter(Boolean)
    .join('\n');
  if (!textFields.includes('title')) return body;
  if (!body) return title ?? '';
  const lines = body.replace(HEADING_MARK, '').split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  if (title && first >= 0 && lines[first]!.trim().toLowerCase() === title.trim().toLowerCase()) {
    lines.splice(first, 1);
  }
  return lines.join('\n').trim() || title || '';
}

function strategyFor(profile: Profile, requested?: RankingStrategy): RankingStrategy {
  if (!requested) return profile.default_ranking_strategy;
  if (!profile.ranking_strategies.includes(requested)) {
    throw new BadRequestError(
      `Strategy '${requested}' is not available for profile '${profile.profile_name}'; available: ${profile.ranking_strategies.join(', ')}`,
    );
  }
  return requested;
}

/**
 * Searches for `request.tenant_id`; `guarded` is that tenant as its request's guard already read it (an
 * agent's run), else the search guards the tenant itself.
 */
export async function searchContent(
  deps: ContentDeps,
  request: SearchRequest,
  guarded?: GuardedTenant,
): Promise<Search.SearchResponse> {
  const started = performance.now();
  const names = request.profiles ?? (request.profile ? [request.profile] : []);
  if (names.length === 0) throw new BadRequestError('Give a profile, or a list of profiles to fuse');
  const { tenant } =
    guarded && guarded.tenant.full === parseTenantId(request.tenant_id).full
      ? guarded
      : await requireTenant(deps.tenancy, request.tenant_id);
  const profiles = await Promise.all(
    [...new Set(names)].map((name) => resolveProfile(deps, tenant.full, name)),
  );
  const strategies = profiles.map((profile) => strategyFor(profile, request.strategy));
  const depth = profiles.length > 1 ? Math.max(request.top_k, 100) : request.top_k;

  const rankings = await Promise.all(
    profiles.map(async (profile, i) => {
      const encoder = deps.encoderFor(profile);
      const schema = tenantSchemaName(profile.schema_name, tenant);
      // Vectors of another encoder than the table's are never compared; BM25 alone reads none.
      if (strategies[i] !== 'bm25_only') await requireEncoder(deps, schema, profile, encoder, 'search');
      const [vectors] = await encoder.encode([request.query], 'query');
      const ranked = await rank(
        { index: deps.index, schema, textFields: profile.text_fields },
        strategies[i]!,
        { text: request.query, vectors: vectors! },
        depth,
      );
      return { profile, schema, ranked };
    }),
  );

  // One profile: its own scores. Several: reciprocal rank fusion (k = 60) over (profile, document) keys.
  let fused: (Scored & { profile: Profile; schema: string })[];
  if (rankings.length === 1) {
    const [only] = rankings;
    fused = only!.ranked.map((s) => ({ ...s, profile: only!.profile, schema: only!.schema }));
  } else {
    const owner = new Map<string, { profile: Profile; schema: string; id: string }>();
    const keyed = rankings.map(({ profile, schema, ranked }) =>
      ranked.map((s) => {
        const key = `${profile.profile_name}\u0000${s.id}`;
        owner.set(key, { profile, schema, id: s.id });
        return key;
      }),
    );
    fused = reciprocalRankFusion(keyed).map(({ id: key, score }) => ({ ...owner.get(key)!, score }));
  }
  fused = fused.slice(0, request.top_k);

  const rows = new Map<string, Record<string, unknown>>();
  for (const { profile, schema } of rankings) {
    const ids = fused.filter((r) => r.schema === schema).map((r) => r.id);
    const template = deps.tenancy.catalog.get(profile.schema_name)!;
    const columns = template.document.fields
      .map((f) => f.name)
      .filter((name) => !name.startsWith('embedding') && name !== 'dense_embedding');
    for (const row of await deps.index.fetch(schema, ids, columns))
      rows.set(`${schema}\u0000${String(row.document_id)}`, row);
  }

  const results: SearchResult[] = fused.map((r, i) => {
    const row = rows.get(`${r.schema}\u0000${r.id}`) ?? {};
    const fields = Object.fromEntries(
      Object.entries(row)
        .filter(([name, value]) => !HIDDEN.has(name) && value !== null && value !== undefined)
        .map(([name, value]) => [name, typeof value === 'bigint' ? Number(value) : value]),
    );
    const text = hitText(row, r.profile.text_fields);
    return {
      document_id: r.id,
      source_doc_id: String(row.source_doc_id ?? ''),
      score: r.score,
      rank: i + 1,
      profile: r.profile.profile_name,
      text: snippet(text, request.query),
      fields,
    };
  });

  const uniform = new Set(strategies).size === 1;
  return {
    query: request.query,
    ...(request.profiles
      ? { profiles: profiles.map((p) => p.profile_name) }
      : { profile: profiles[0]!.profile_name }),
    strategy: uniform
      ? strategies[0]!
      : Object.fromEntries(profiles.map((p, i) => [p.profile_name, strategies[i]!])),
    ...(rankings.length > 1 ? { fusion: { method: 'reciprocal_rank_fusion', k: 60 } } : {}),
    results,
    count: results.length,
    took_ms: Math.round((performance.now() - started) * 100) / 100,
  };
}

/** Profiles a tenant can search (its own, then the shipped ones), with whether its schema holds anything yet. */
export async function listProfiles(deps: ContentDeps, ref: TenantRef): Promise<Search.ProfileList> {
  const { tenant, record } = await guardTenant(deps.tenancy, ref);
  const usable = await deps.profilesFor(tenant.full);
  const profiles = await Promise.all(
    usable.list().map(async (profile) => {
      const schema = tenantSchemaName(profile.schema_name, tenant);
      const deployed = record.schemas_deployed.includes(profile.schema_name);
      return {
        profile_name: profile.profile_name,
        type: profile.type,
        description: profile.description,
        schema_name: profile.schema_name,
        tenant_schema_name: schema,
        schema_deployed: deployed,
        document_count: deployed ? await deps.index.count(schema) : 0,
        embedding_model: profile.embedding_model,
        embedding_type: profile.embedding_type,
        encoder: deps.encoderFor(profile).name,
        ranking_strategies: profile.ranking_strategies,
        default_ranking_strategy: profile.default_ranking_strategy,
      };
    }),
  );
  return { tenant_id: tenant.full, profiles, count: profiles.length };
}
