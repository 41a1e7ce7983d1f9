/**
 * The offline default entity extractor: compromise's lexicon and rule tagger (shipped inside its npm package, no
 * download, deterministic). It covers Person, Organization, Location and Date only; the other eleven labels need
 * a model (GLiNER or an LLM). Its matches carry score 1: a rule tagger has no probability to give.
 */
import { type SelectionName, type TaggedTerm, type TaggedText, tagText, warmTagging } from './compromise';
import { EntityExtractionError } from './errors';
import { filterEntities } from './filter';
import type { EntityExtractor, ExtractedEntity, ExtractionContext } from './types';
import type { EntityLabel } from './vocabulary';

const SELECTIONS: { label: EntityLabel; selection: SelectionName }[] = [
  { label: 'Person', selection: 'people' },
  { label: 'Organization', selection: 'organizations' },
  { label: 'Location', selection: 'places' },
  { label: 'Date', selection: 'dates' },
];

/** Punctuation between two terms that ends a name: "Paris, France" is two places, "(France)" stands apart. */
const BREAK = /[,;:()[\]{}"“”«»|/—–]/;
const DATE_BREAK = /[;:()[\]{}"“”«»|/—–]/;

/** A match's terms cut where punctuation separates names, honorifics and possessive endings left out. */
function spans(terms: TaggedTerm[], label: EntityLabel): { start: number; end: number }[] {
  const breaks = label === 'Date' ? DATE_BREAK : BREAK;
  const groups: TaggedTerm[][] = [];
  let group: TaggedTerm[] = [];
  for (const term of terms) {
    const previous = group[group.length - 1];
    if (previous && (breaks.test(previous.post) || breaks.test(term.pre))) {
      groups.push(group);
      group = [];
    }
    group.push(term);
  }
  if (group.length > 0) groups.push(group);
  const result: { start: number; end: number }[] = [];
  for (let words of groups) {
    if (label === 'Person') words = words.filter((term) => !term.tags.includes('Honorific'));
    const first = words[0];
    const last = words[words.length - 1];
    if (!first || !last) continue;
    let end = last.end;
    if (/['’]s$/i.test(last.text) && end - 2 > first.start) end -= 2;
    result.push({ start: first.start, end });
  }
  return result;
}

/** Code blocks, inline code, URLs and markup: not prose, and the tagger's time goes by the character. */
const NOT_PROSE =
  /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`|\b[a-z][a-z0-9+.-]*:\/\/\S+|<[^>\n]+>/gi;

/** The text with what is not prose blanked out, so every offset still points into the original. */
export function proseOf(text: string): string {
  return text.replace(NOT_PROSE, (match) => match.replace(/[^\n]/g, ' '));
}

export class CompromiseEntityExtractor implements EntityExtractor {
  readonly name = 'embedded:compromise';
  readonly labels: readonly EntityLabel[] = SELECTIONS.map((entry) => entry.label);

  warm(): void {
    warmTagging();
  }

  async extract(text: string, context: ExtractionContext): Promise<ExtractedEntity[]> {
    if (text.trim() === '') return [];
    let tagged: TaggedText;
    try {
      tagged = await tagText(proseOf(text), { selectionsOnly: true });
    } catch (error) {
      throw new EntityExtractionError(this.name, context, `the tagger failed: ${String(error)}`, error);
    }
    const found: ExtractedEntity[] = [];
    for (const { label, selection } of SELECTIONS) {
      for (const match of tagged.selections[selection]) {
        for (const { start, end } of spans(match, label)) {
          found.push({ text: text.slice(start, end), label, score: 1, start, end });
        }
      }
    }
    // The post-filter reads the word classes of this tagging (the terms of the selections, which hold every
    // entity's words): the text is not tagged twice.
    return filterEntities(text, withoutOverlaps(found), tagged.terms);
  }
}

/** Of overlapping spans the longer wins ("University of Paris" over "Paris"), then the earlier selection. */
function withoutOverlaps(entities: ExtractedEntity[]): ExtractedEntity[] {
  const ranked = entities
    .map((entity, order) => ({ entity, order }))
    .sort((a, b) => b.entity.end - b.entity.start - (a.entity.end - a.entity.start) || a.order - b.order);
  const kept: ExtractedEntity[] = [];
  for (const { entity } of ranked) {
    if (kept.every((other) => entity.end <= other.start || entity.start >= other.end)) kept.push(entity);
  }
  return kept.sort((a, b) => a.start - b.start);
}
