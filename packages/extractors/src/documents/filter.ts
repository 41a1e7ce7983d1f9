/**
 * The post-filter every entity extractor's answer goes through: spans re-anchored on the text, names shorter than
 * two characters dropped, spans made only of pronouns, auxiliary verbs or adverbs dropped, duplicates removed.
 * Word classes come from compromise's tagger read in context (so "Will" in "Will Smith" is a name, "will" in
 * "it will rain" is not), backed by the closed English lists for what the tagger leaves open.
 */
import { normalizeNodeId } from '@tessera/graph/ids';
import { type TaggedTerm, tagText } from './compromise';
import type { ExtractedEntity } from './types';

export const MIN_ENTITY_CHARS = 2;

const PRONOUNS = new Set(
  (
    'i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its itself ' +
    'we us our ours ourselves they them their theirs themselves this that these those who whom whose which what ' +
    'whoever whatever whichever someone somebody something anyone anybody anything everyone everybody everything ' +
    'no-one nobody nothing none one oneself each either neither both another other others'
  ).split(' '),
);

const AUXILIARIES = new Set(
  (
    'be am is are was were been being have has had having do does did done will would shall should may might must ' +
    "can could ought isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't " +
    "shan't shouldn't mightn't mustn't can't couldn't 's 're 've 'd 'll 'm"
  ).split(' '),
);

/** Adverbs the tagger may read as something else out of a full sentence. */
const ADVERBS = new Set(
  (
    'very really quite too also just only even still already always never often sometimes usually rarely seldom ' +
    'here there then now soon later again almost rather so yet ever perhaps maybe however therefore thus indeed ' +
    'instead otherwise anyway somewhat nearly mostly mainly hardly barely merely simply actually certainly clearly ' +
    'probably possibly obviously quickly slowly recently finally once twice today tonight yesterday tomorrow'
  ).split(' '),
);

const FUNCTION_TAGS = ['Pronoun', 'Adverb', 'Auxiliary', 'Copula', 'Modal'];

/** Where `entity.text` stands in `text`: its own offsets when they hold it, else its first occurrence. */
function anchor(text: string, entity: ExtractedEntity): { start: number; end: number } | undefined {
  const { start, end } = entity;
  if (start >= 0 && end <= text.length && start < end && text.slice(start, end) === entity.text) {
    return { start, end };
  }
  const name = entity.text.trim();
  if (name === '') return undefined;
  const found = text.indexOf(name);
  return found < 0 ? undefined : { start: found, end: found + name.length };
}

function isFunctionWord(word: string, term: TaggedTerm | undefined): boolean {
  // An acronym is a name ("IT", "US"), whatever the tagger makes of it.
  if (word.length >= 2 && word === word.toUpperCase() && word !== word.toLowerCase()) return false;
  const lower = word.toLowerCase();
  if (PRONOUNS.has(lower)) return true;
  if (term && FUNCTION_TAGS.some((tag) => term.tags.includes(tag))) return true;
  return word === lower && (AUXILIARIES.has(lower) || ADVERBS.has(lower));
}

function wordsOf(span: string): RegExpExecArray[] {
  return [...span.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|'[a-z]+/gu)];
}

/**
 * Whether a span out of context (a claim's subject or object) is made only of pronouns, auxiliary verbs or
 * adverbs, by the closed English lists: "She", "it", "they themselves" name nothing a node could stand for.
 */
export function onlyFunctionWords(span: string): boolean {
  const words = wordsOf(span);
  return words.length > 0 && words.every((word) => isFunctionWord(word[0], undefined));
}

/**
 * The entities worth keeping, in text order: each re-anchored on `text` (dropped when its text is not there),
 * trimmed of surrounding whitespace, at least two characters long, with a name that gives a node id, not made
 * only of pronouns, auxiliary verbs or adverbs, one per span (the highest score wins). `terms` are the
 * tagger's terms of `text` when the caller has them; otherwise `text` is tagged when a word needs its class.
 */
export async function filterEntities(
  text: string,
  entities: ExtractedEntity[],
  terms?: TaggedTerm[],
): Promise<ExtractedEntity[]> {
  if (entities.length === 0) return [];
  let termsAt: Map<number, TaggedTerm> | undefined;
  const termAt = async (offset: number) => {
    termsAt ??= new Map((terms ?? (await tagText(text)).terms).map((term) => [term.start, term]));
    return termsAt.get(offset);
  };
  const bySpan = new Map<string, ExtractedEntity>();
  for (const entity of entities) {
    const at = anchor(text, entity);
    if (!at) continue;
    let { start, end } = at;
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    const name = text.slice(start, end);
    if (name.length < MIN_ENTITY_CHARS || normalizeNodeId(name) === '') continue;
    const words = wordsOf(name);
    let onlyFunctionWords = words.length > 0;
    for (const word of words) {
      if (!isFunctionWord(word[0], await termAt(start + word.index))) {
        onlyFunctionWords = false;
        break;
      }
    }
    if (onlyFunctionWords) continue;
    const key = `${start}:${end}`;
    const kept = bySpan.get(key);
    if (!kept || entity.score > kept.score) bySpan.set(key, { ...entity, text: name, start, end });
  }
  return [...bySpan.values()].sort((a, b) => a.start - b.start || a.end - b.end);
}
