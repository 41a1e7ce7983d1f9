/**
 * A tenant profile as search and ingestion use it: the named fields, with the keys of `extra_config` they read
 * (`extensions`, `text_fields`, `ranking_strategies`, `default_ranking_strategy`, `inference_services`) or
 * their defaults: the extensions of the shipped profiles of its type, every full-text field of its schema,
 * every ranking strategy with `hybrid_binary_bm25` first choice.
 */
import {
  nonTextFields,
  Profile,
  type ProfileCatalog,
  RankingStrategy,
  type SchemaCatalog,
} from '@tessera/search';
import type { StoredProfile } from './store';

/** The keys of `extra_config` that search and ingestion read. */
export const READ_EXTRA_KEYS = [
  'extensions',
  'text_fields',
  'ranking_strategies',
  'default_ranking_strategy',
  'inference_services',
] as const;

const DEFAULT_STRATEGY = 'hybrid_binary_bm25';

export type ProfileFields = Omit<StoredProfile, 'tenant_id' | 'version' | 'created_at' | 'updated_at'>;

/** The profile, or the problems of the `extra_config` keys it reads (`extra_config.<key>: <problem>`). */
export function effectiveProfile(
  fields: ProfileFields,
  shipped: ProfileCatalog,
  schemas: SchemaCatalog,
): { profile: Profile; errors?: undefined } | { profile?: undefined; errors: string[] } {
  const extra = fields.extra_config;
  const template = schemas.get(fields.schema_name);
  if (!template) return { errors: [`Schema template '${fields.schema_name}_schema.json' not found`] };
  const rankings = (extra.ranking_strategies as unknown[] | undefined) ?? RankingStrategy.options;
  const parsed = Profile.safeParse({
    profile_name: fields.profile_name,
    type: fields.type,
    description: fields.description,
    schema_name: fields.schema_name,
    embedding_model: fields.embedding_model,
    embedding_type: fields.embedding_type,
    ...(fields.model_loader ? { model_loader: fields.model_loader } : {}),
    ...(fields.process_type ? { process_type: fields.process_type } : {}),
    text_fields:
      extra.text_fields ??
      template.document.fields.filter((field) => field.fulltext).map((field) => field.name),
    extensions: extra.extensions ?? shipped.extensionsOfType(fields.type),
    strategies: fields.strategies,
    pipeline_config: fields.pipeline_config,
    ranking_strategies: rankings,
    default_ranking_strategy:
      extra.default_ranking_strategy ??
      (Array.isArray(rankings) && !rankings.includes(DEFAULT_STRATEGY) ? rankings[0] : DEFAULT_STRATEGY),
    ...(extra.inference_services === undefined ? {} : { inference_services: extra.inference_services }),
  });
  if (!parsed.success) {
    return {
      errors: parsed.error.issues.map((issue) => {
        const [key, ...rest] = issue.path.map(String);
        const where = READ_EXTRA_KEYS.includes(key as (typeof READ_EXTRA_KEYS)[number])
          ? ['extra_config', key, ...rest].join('.')
          : issue.path.join('.');
        return `${where || 'profile'}: ${issue.message}`;
      }),
    };
  }
  const notText = nonTextFields(parsed.data, template);
  if (notText.length > 0) {
    return {
      errors: notText.map(
        (name) =>
          `extra_config.text_fields: '${name}' is not a full-text field of schema '${fields.schema_name}'`,
      ),
    };
  }
  return { profile: parsed.data };
}
