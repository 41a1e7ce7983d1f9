/** Content search routes: ranked results of one profile or several fused, and the profiles a tenant can search. */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';
import { ProfileName } from './ids';

/** The nine ranking strategies (document 3). */
export const RankingStrategy = z
  .enum([
    'bm25_only',
    'float_float',
    'binary_binary',
    'float_binary',
    'phased',
    'hybrid_float_bm25',
    'hybrid_binary_bm25',
    'hybrid_bm25_float',
    'hybrid_bm25_binary',
  ])
  .meta({ id: 'RankingStrategy' });
export type RankingStrategy = z.infer<typeof RankingStrategy>;

export const ProfileType = z.enum(['video', 'image', 'audio', 'document', 'code', 'wiki']);
export type ProfileType = z.infer<typeof ProfileType>;

export const EmbeddingType = z.enum(['multi_vector', 'single_vector']);
export type EmbeddingType = z.infer<typeof EmbeddingType>;

export const SearchRequest = z.strictObject({
  query: z.string().min(1).max(10_000),
  tenant_id: z.string(),
  profile: ProfileName.optional(),
  profiles: z
    .array(ProfileName)
    .min(1)
    .max(10)
    .optional()
    .meta({ description: 'Several profiles, fused by reciprocal rank fusion (k = 60).' }),
  strategy: RankingStrategy.optional().meta({ description: "Default: each profile's own." }),
  top_k: z.number().int().min(1).max(1000).default(10),
});
export type SearchRequest = z.output<typeof SearchRequest>;

export const SearchResult = z
  .object({
    document_id: z.string(),
    source_doc_id: z.string(),
    score: z.number(),
    rank: z.number().int(),
    profile: z.string(),
    text: z.string().meta({ description: "A snippet of the document's text around the first query word." }),
    fields: z.record(z.string(), z.unknown()).meta({ description: "The document's other stored columns." }),
  })
  .meta({ id: 'SearchResult' });
export type SearchResult = z.infer<typeof SearchResult>;

export const SearchResponse = z
  .object({
    query: z.string(),
    profile: z.string().optional().meta({ description: 'The profile searched, for a one-profile request.' }),
    profiles: z.array(z.string()).optional().meta({ description: 'The profiles fused, for `profiles`.' }),
    strategy: z
      .union([RankingStrategy, z.record(z.string(), RankingStrategy)])
      .meta({ description: "The strategy, or each profile's when they differ." }),
    fusion: z.object({ method: z.literal('reciprocal_rank_fusion'), k: z.literal(60) }).optional(),
    results: z.array(SearchResult),
    count: z.number().int(),
    took_ms: z.number(),
  })
  .meta({ id: 'SearchResponse' });
export type SearchResponse = z.infer<typeof SearchResponse>;

export const SearchableProfile = z.object({
  profile_name: z.string(),
  type: ProfileType,
  description: z.string(),
  schema_name: z.string(),
  tenant_schema_name: z.string(),
  schema_deployed: z.boolean(),
  document_count: z.number().int(),
  embedding_model: z.string(),
  embedding_type: EmbeddingType,
  encoder: z.string().meta({ description: "The encoder that embeds this profile's text." }),
  ranking_strategies: z.array(RankingStrategy),
  default_ranking_strategy: RankingStrategy,
});
export type SearchableProfile = z.infer<typeof SearchableProfile>;

export const ProfileList = z.object({
  tenant_id: z.string(),
  profiles: z.array(SearchableProfile),
  count: z.number().int(),
});
export type ProfileList = z.infer<typeof ProfileList>;

export const search = route({
  id: 'search',
  group: 'search',
  method: 'POST',
  route: '/search',
  summary: "Search a tenant's content",
  body: SearchRequest,
  responses: { 200: { description: 'The ranked results.', schema: SearchResponse } },
  errors: {
    400: plain(
      'A malformed tenant id, no profile given, an unknown profile, or a strategy the profile does not offer.',
    ),
    404: tenantGuard[404],
    409: tenantGuard[409],
    502: plain('The embedding service failed the query.'),
    503: outage,
  },
});

export const profiles = route({
  id: 'profiles',
  group: 'search',
  method: 'GET',
  route: '/search/profiles',
  summary: 'The profiles a tenant can search',
  query: z.object({ tenant_id: z.string() }),
  responses: {
    200: { description: 'Each profile with its schema and document count.', schema: ProfileList },
  },
  errors: { ...tenantGuard, 503: outage },
});
