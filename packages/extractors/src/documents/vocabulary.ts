/** The locked vocabularies of document extraction: the 15 entity labels and the 16 claim predicates. */

export const ENTITY_LABELS = [
  'Person',
  'Organization',
  'Location',
  'Date',
  'Substance',
  'Award',
  'Field',
  'Event',
  'Concept',
  'Technology',
  'Product',
  'Algorithm',
  'Model',
  'Framework',
  'Language',
] as const;
export type EntityLabel = (typeof ENTITY_LABELS)[number];

export const PREDICATES = [
  'born_in',
  'discovered',
  'discovered_in',
  'located_at',
  'won',
  'worked_at',
  'wrote',
  'invented',
  'studied',
  'contains',
  'occurred_at',
  'part_of',
  'preceded_by',
  'followed_by',
  'caused_by',
  'contradicts',
] as const;
export type Predicate = (typeof PREDICATES)[number];

const VOCABULARY: ReadonlySet<string> = new Set(PREDICATES);

/** Variants that name a vocabulary entry, after lower-casing and `_` substitution. */
export const PREDICATE_ALIASES: Readonly<Record<string, Predicate>> = {
  was_born_in: 'born_in',
  is_born_in: 'born_in',
  born_at: 'born_in',
  located_in: 'located_at',
  is_at: 'located_at',
  caused: 'caused_by',
  contained_in: 'part_of',
  is_part_of: 'part_of',
  containing: 'contains',
  took_place_in: 'occurred_at',
};

/** Copula and perfect prefixes stripped once before a second look: `was_discovered_in` → `discovered_in`. */
const PREFIXES = ['has_been_', 'have_been_', 'was_', 'is_', 'were_', 'are_'] as const;

function lookUp(key: string): Predicate | undefined {
  if (VOCABULARY.has(key)) return key as Predicate;
  return Object.hasOwn(PREDICATE_ALIASES, key) ? PREDICATE_ALIASES[key] : undefined;
}

/**
 * A predicate as a vocabulary entry: lower-case, each space or hyphen to `_`, the entry or an alias, else one
 * leading `was_`/`is_`/`were_`/`are_`/`has_been_`/`have_been_` stripped and looked up again. Anything else is
 * undefined (the claim is dropped). Surrounding whitespace is ignored.
 */
export function normalizePredicate(predicate: string): Predicate | undefined {
  const key = predicate.trim().toLowerCase().replace(/[\s-]/g, '_');
  const direct = lookUp(key);
  if (direct) return direct;
  const prefix = PREFIXES.find((candidate) => key.startsWith(candidate));
  return prefix ? lookUp(key.slice(prefix.length)) : undefined;
}
