/** Plain text tools of the agents that need no model: words, sentences, stop words, languages. */

/** Words of at least two letters or digits, lower-cased. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? [];
}

/** Sentences: split after `.`, `!`, `?` (or a line break) followed by space; trimmed, empty ones dropped. */
export function sentences(text: string): string[] {
  return text
    .replace(/\s+\n|\n\s*\n/g, '\n')
    .split(/(?<=[.!?…])\s+|\n+/u)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => /[\p{L}\p{N}]/u.test(sentence));
}

/**
 * The entries whose sentence is a finished one (ending in `.`, `!`, `?` or `…`) when there are any, else
 * every line but Markdown headings: a title or a heading line is no sentence of a summary or a report.
 */
export function proseOf<T extends { sentence: string }>(entries: T[]): T[] {
  const lines = entries.filter((entry) => !/^#{1,6}\s/u.test(entry.sentence));
  const prose = lines.filter((entry) => /[.!?…]["'”’)\]]*$/u.test(entry.sentence));
  return prose.length > 0 ? prose : lines.length > 0 ? lines : entries;
}

const STOP_WORDS: Record<string, string> = {
  en: 'the a an and or of to in on for with is are was were be been by at from this that these those it its as not but what which who whom how why when where do does did can could should would will about into than then there their they them we you your our i me my he she his her',
  de: 'der die das und oder von zu im in auf für mit ist sind war waren sein ein eine einer nicht aber was wer wie warum wann wo den dem des auch sich es ich du er sie wir ihr',
  fr: 'le la les et ou de des du un une pour avec est sont était être par sur dans ce cette ces il elle ils elles nous vous je pas mais que qui quoi comment pourquoi quand où au aux',
  es: 'el la los las y o de del un una para con es son era ser por en este esta estos estas que qui cómo por qué cuando donde no pero lo al se su sus',
  it: 'il lo la i gli le e o di del della un una per con è sono era essere da in su questo questa che chi come perché quando dove non ma al dei delle',
  pt: 'o a os as e ou de do da dos das um uma para com é são era ser por em este esta que quem como porque quando onde não mas ao no na se',
  nl: 'de het een en of van voor met is zijn was waren door op in dit dat deze die wie hoe waarom wanneer waar niet maar te ook er',
};
const STOP_SETS = Object.fromEntries(
  Object.entries(STOP_WORDS).map(([language, list]) => [language, new Set(list.split(' '))]),
);
const ALL_STOP = new Set(Object.values(STOP_SETS).flatMap((set) => [...set]));

export const isStopWord = (word: string) => ALL_STOP.has(word);

/**
 * The language whose stop words the text uses most (ISO 639-1), or `und` when too few words say: a text of
 * fewer than 3 stop words, or two languages tied.
 */
export function detectLanguage(tokens: string[]): string {
  const counts = Object.entries(STOP_SETS)
    .map(([language, set]) => ({ language, hits: tokens.filter((word) => set.has(word)).length }))
    .sort((a, b) => b.hits - a.hits);
  const [first, second] = counts;
  if (!first || first.hits < 3 || (second && second.hits === first.hits)) return 'und';
  return first.language;
}

/** The content words of a text (no stop words, at least 3 characters), most frequent first, then first seen. */
export function keywords(tokens: string[], limit = 10): string[] {
  const counts = new Map<string, number>();
  for (const word of tokens) {
    if (word.length < 3 || isStopWord(word) || /^\d+$/.test(word)) continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([word]) => word);
}

/** The content words of a query, for overlap scores. */
export function queryTerms(query: string): Set<string> {
  return new Set(words(query).filter((word) => word.length >= 2 && !isStopWord(word)));
}

/** Share of the query's terms a sentence holds, in [0, 1]. */
export function overlap(terms: Set<string>, sentence: string): number {
  if (terms.size === 0) return 0;
  const seen = new Set(words(sentence));
  let hits = 0;
  for (const term of terms) if (seen.has(term)) hits++;
  return hits / terms.size;
}

/**
 * The conversation before a query (`context.history`, which chat fills), as prompt lines for an LLM:
 * nothing when there is none.
 */
export function conversationLines(context: { history?: { role: string; content: string }[] }): string[] {
  const history = context.history ?? [];
  if (history.length === 0) return [];
  return ['Conversation so far:', history.map((turn) => `${turn.role}: ${turn.content}`).join('\n')];
}
