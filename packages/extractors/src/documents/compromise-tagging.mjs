/**
 * compromise's tagging of one text as plain data (terms with offsets and tags, per selection): plain JavaScript
 * so that the tagging threads load it as it is, under tsx, vitest or a bare node alike.
 */
import nlp from 'compromise';

/**
 * compromise's match sweep (its post-tagger runs it for every text), with the same result: for each sentence
 * part, the candidate rules of the cache keys it holds, in the order of the rule index, each rule once, then
 * kept when its needs, wants and size fit. compromise's own sweep looks up every key of the rule index for
 * every part and de-duplicates through an object keyed by rule text, which was a third of its tagging time.
 */
function bulkMatch(document, net, methods, opts = {}) {
  const caches = methods.one.cacheDoc(document);
  const rank = rankOf(net.hooks);
  const results = [];
  for (let n = 0; n < document.length; n += 1) {
    const haves = caches[n];
    if (entitiesOnly && !mayHoldEntities(haves, net)) continue;
    const keys = [];
    for (const item of haves) if (rank.has(item)) keys.push(item);
    keys.sort((a, b) => rank.get(a) - rank.get(b));
    const seen = new Set();
    const size = document[n].length;
    const candidates = [];
    for (const key of keys) {
      for (const rule of net.hooks[key]) {
        if (seen.has(rule.match)) continue;
        seen.add(rule.match);
        if (fits(rule, haves)) candidates.push(rule);
      }
    }
    for (const rule of net.always) candidates.push(rule);
    for (const rule of candidates) {
      if (size < rule.minWords) continue;
      const found = methods.one.match([document[n]], rule);
      for (const pointer of found.ptrs) {
        pointer[0] = n;
        results.push({ ...rule, pointer });
      }
      if (found.ptrs.length > 0 && opts.matchOne === true) return [results[0]];
    }
  }
  return results;
}

/** Whether a sentence part holding the cache keys `haves` meets a rule's needs, `ifNo` and wants. */
function fits(rule, haves) {
  for (const need of rule.needs) if (!haves.has(need)) return false;
  if (rule.ifNo !== undefined) for (const no of rule.ifNo) if (haves.has(no)) return false;
  if (rule.wants.length === 0) return true;
  let found = 0;
  for (const want of rule.wants) if (haves.has(want)) found += 1;
  return found >= rule.minWant;
}

/** The tags the selections are made of: a part without them after the sweep takes no part in any selection. */
const ENTITY_TAGS = ['Person', 'Place', 'Address', 'Organization', 'Date'];

/** Set while tagging for the selections only (see `tagText`). */
let entitiesOnly = false;

/**
 * Whether a sentence part may hold an entity tag after the sweep: it holds one already, or a rule that may run
 * on it (its needs, wants and size fit) sets one. The rules of a sweep all match on the tags the part had
 * before it (compromise applies them after matching them all), and a rule can only add the tags it names and
 * their parents, or remove tags: a part where neither holds ends without an entity tag whatever else it gets.
 */
function mayHoldEntities(haves, net) {
  if (ENTITY_TAGS.some((tag) => haves.has(`#${tag}`))) return true;
  const setsEntity = entityRules(net);
  for (const key of haves) {
    if (!Object.hasOwn(net.hooks, key)) continue;
    for (const rule of net.hooks[key]) if (setsEntity.has(rule) && fits(rule, haves)) return true;
  }
  return net.always.some((rule) => setsEntity.has(rule));
}

const entityRulesOf = new WeakMap();

/** The rules of a rule index that set an entity tag, or a tag under one. */
function entityRules(net) {
  let rules = entityRulesOf.get(net);
  if (!rules) {
    const { tagSet } = nlp.world().model.one;
    const isEntity = (tag) => {
      const name = tag.replace(/^#/, '');
      return ENTITY_TAGS.includes(name) || (tagSet[name]?.parents ?? []).some((p) => ENTITY_TAGS.includes(p));
    };
    const tagsOf = (rule) => (Array.isArray(rule.tag) ? rule.tag : String(rule.tag ?? '').split(/\s+/));
    rules = new Set(
      [...Object.values(net.hooks).flat(), ...net.always].filter((rule) => tagsOf(rule).some(isEntity)),
    );
    entityRulesOf.set(net, rules);
  }
  return rules;
}

const ranks = new WeakMap();

/** The position of each key of a rule index (built once, then read-only). */
function rankOf(hooks) {
  let rank = ranks.get(hooks);
  if (!rank) {
    rank = new Map(Object.keys(hooks).map((key, index) => [key, index]));
    ranks.set(hooks, rank);
  }
  return rank;
}

const stock = { bulkMatch: nlp.world().methods.one.bulkMatch, hooks: nlp.world().hooks };
nlp.plugin({ methods: { one: { bulkMatch } } });
// The chunker (noun, verb and adjective phrases for compromise's `<Noun>` match syntax) sets no tag and
// none of the selections below reads it: a tenth of the tagging time saved. compromise is only used here.
nlp.world().hooks = nlp.world().hooks.filter((hook) => hook !== 'chunks');

/** The selections read from a tagged text, by name. */
export const SELECTIONS = {
  people: (doc) => doc.people(),
  places: (doc) => doc.places(),
  organizations: (doc) => doc.organizations(),
  dates: (doc) => doc.match('#Date+'),
};

function termOf(term) {
  return {
    text: term.text,
    pre: term.pre,
    post: term.post,
    tags: [...term.tags],
    start: term.offset.start,
    end: term.offset.start + term.offset.length,
  };
}

/**
 * `text` tagged once: the terms of every match of each selection, and every term. With `selectionsOnly`, the
 * rule sweep skips the sentence parts that cannot end up in a selection (most of a technical text), and
 * `terms` holds only the terms of the selections' matches: the only ones whose tags are then those of a
 * full tagging, and the only ones an entity drawn from the selections covers.
 */
export function tagText(text, { selectionsOnly = false } = {}) {
  let doc;
  entitiesOnly = selectionsOnly;
  try {
    doc = nlp(text);
  } finally {
    entitiesOnly = false;
  }
  doc.compute('offset');
  const selections = {};
  const selected = new Map();
  for (const [name, select] of Object.entries(SELECTIONS)) {
    selections[name] = select(doc).docs.map((terms) =>
      terms.map((term) => {
        // A term in several selections (a place inside an organization's name) is copied once.
        if (!selected.has(term)) selected.set(term, termOf(term));
        return selected.get(term);
      }),
    );
  }
  const terms = selectionsOnly
    ? [...selected.values()].sort((a, b) => a.start - b.start)
    : doc.docs.flat().map(termOf);
  return { selections, terms };
}

/** `tagText` through compromise's own sweep and with its chunker: the reference the tests hold it to. */
export function referenceTagText(text) {
  const world = nlp.world();
  const ours = { bulkMatch: world.methods.one.bulkMatch, hooks: world.hooks };
  world.methods.one.bulkMatch = stock.bulkMatch;
  world.hooks = stock.hooks;
  try {
    return tagText(text);
  } finally {
    world.methods.one.bulkMatch = ours.bulkMatch;
    world.hooks = ours.hooks;
  }
}
