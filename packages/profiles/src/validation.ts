/**
 * The business rules of a profile (document 2, clarifications): every broken rule is reported at once, in the
 * words of the clarifications.
 */
import { Profiles, Search } from '@tessera/api';
import type { ProfileCatalog, SchemaCatalog } from '@tessera/search';
import { strategyClassNames } from '@tessera/search';
import { effectiveProfile, type ProfileFields } from './effective';

const NAME = /^[A-Za-z0-9_-]{1,100}$/;
const EMBEDDING_MODEL = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;
const MAX_DIM = 100_000;

/** A value quoted in a message, cut so one long input cannot make a long message. */
const quoted = (value: unknown) => {
  const text = String(value);
  return `'${text.length > 120 ? `${text.slice(0, 117)}...` : text}'`;
};

export const profileNameError = (name: string) =>
  NAME.test(name)
    ? undefined
    : `Invalid profile_name ${quoted(name)}: use at most 100 letters, digits, underscores or hyphens`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Each strategy entry is `{class, params?}` naming a class the ingestion pipeline implements. */
export function strategyErrors(strategies: Record<string, unknown>): string[] {
  const known = new Set(strategyClassNames());
  const errors: string[] = [];
  for (const [key, entry] of Object.entries(strategies)) {
    const shaped =
      isObject(entry) &&
      typeof entry.class === 'string' &&
      Object.keys(entry).every((k) => k === 'class' || k === 'params') &&
      (entry.params === undefined || isObject(entry.params));
    if (!shaped) {
      errors.push(
        `Invalid strategy ${quoted(key)}: expected an object with a 'class' name and an optional 'params' object`,
      );
    } else if (!known.has(entry.class as string)) {
      errors.push(`Unknown strategy class ${quoted(entry.class)}`);
    }
  }
  return errors;
}

/** Types whose every shipped profile names a model loader: a profile of one of them needs one too. */
function loaderRequired(shipped: ProfileCatalog, type: string): boolean {
  const ofType = shipped.list().filter((profile) => profile.type === type);
  return ofType.length > 0 && ofType.every((profile) => profile.model_loader !== undefined);
}

/** Every rule a create request breaks (without the duplicate check, which needs the store). */
export function createErrors(
  input: Profiles.CreateProfileRequest,
  shipped: ProfileCatalog,
  schemas: SchemaCatalog,
): string[] {
  const errors: string[] = [];
  const nameError = profileNameError(input.profile_name);
  if (nameError) errors.push(nameError);
  const typeValid = Search.ProfileType.safeParse(input.type).success;
  if (!typeValid) {
    errors.push(
      `Invalid type ${quoted(input.type)}: expected one of ${Search.ProfileType.options.join(', ')}`,
    );
  }
  const schemaKnown = schemas.has(input.schema_name);
  if (!schemaKnown) errors.push(`Schema template '${input.schema_name}_schema.json' not found`);
  if (!EMBEDDING_MODEL.test(input.embedding_model) || input.embedding_model.length > 200) {
    errors.push(
      `Invalid embedding_model ${quoted(input.embedding_model)}: expected 'org/model' or 'model-name'`,
    );
  }
  const embeddingValid = Search.EmbeddingType.safeParse(input.embedding_type).success;
  if (!embeddingValid) {
    errors.push(
      `Invalid embedding_type ${quoted(input.embedding_type)}: expected 'multi_vector' or 'single_vector'`,
    );
  }
  if (input.model_loader !== null && !Profiles.ModelLoader.safeParse(input.model_loader).success) {
    errors.push(
      `Invalid model_loader ${quoted(input.model_loader)}: expected one of ${Profiles.ModelLoader.options.join(', ')}`,
    );
  } else if (input.model_loader === null && typeValid && loaderRequired(shipped, input.type)) {
    errors.push(`model_loader is required for profiles of type '${input.type}'`);
  }
  if (input.process_type !== null && !Profiles.ProcessType.safeParse(input.process_type).success) {
    errors.push(
      `Invalid process_type ${quoted(input.process_type)}: expected one of ${Profiles.ProcessType.options.join(', ')}`,
    );
  }
  errors.push(...strategyErrors(input.strategies));
  const dim = input.schema_config.embedding_dim;
  if (
    dim !== undefined &&
    !(typeof dim === 'number' && Number.isInteger(dim) && dim >= 1 && dim <= MAX_DIM)
  ) {
    errors.push('schema_config.embedding_dim must be an integer from 1 to 100000');
  }
  const fields = new Set<string>(Profiles.PROFILE_FIELDS);
  const named = Object.keys(input.extra_config).filter((key) => fields.has(key));
  for (const key of named) errors.push(`extra_config key '${key}' names a profile field`);
  // What search and ingestion read of extra_config, once the fields it depends on are sound.
  if (errors.length === 0) {
    const effective = effectiveProfile(fieldsOf(input), shipped, schemas);
    if (effective.errors) errors.push(...effective.errors);
  }
  return errors;
}

/** The stored fields of a create request (its choice fields valid). */
export function fieldsOf(input: Profiles.CreateProfileRequest): ProfileFields {
  return {
    profile_name: input.profile_name,
    type: input.type as ProfileFields['type'],
    schema_name: input.schema_name,
    embedding_model: input.embedding_model,
    embedding_type: input.embedding_type as ProfileFields['embedding_type'],
    description: input.description,
    strategies: input.strategies,
    pipeline_config: input.pipeline_config,
    model_specific: input.model_specific,
    schema_config: input.schema_config,
    model_loader: input.model_loader as ProfileFields['model_loader'],
    process_type: input.process_type as ProfileFields['process_type'],
    extra_config: input.extra_config,
  };
}
