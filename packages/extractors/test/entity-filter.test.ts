import { type ExtractedEntity, filterEntities } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';

/** An entity at the first occurrence of `name` in `text`. */
function at(
  text: string,
  name: string,
  label: ExtractedEntity['label'] = 'Person',
  score = 0.9,
): ExtractedEntity {
  const start = text.indexOf(name);
  if (start < 0) throw new Error(`'${name}' is not in the text`);
  return { text: name, label, score, start, end: start + name.length };
}

describe('filterEntities', () => {
  it('answers nothing for nothing', async () => {
    expect(await filterEntities('Some text.', [])).toEqual([]);
  });

  it('drops names shorter than two characters, whitespace not counted', async () => {
    const text = 'X met Al and Q in Rome.';
    const kept = await filterEntities(text, [
      at(text, 'X'),
      at(text, 'Al'),
      { text: ' Q ', label: 'Person', score: 0.9, start: 12, end: 15 },
      at(text, 'Rome', 'Location'),
    ]);
    expect(kept.map((entity) => entity.text)).toEqual(['Al', 'Rome']);
  });

  it('drops spans made only of pronouns, auxiliary verbs or adverbs', async () => {
    const text = 'She has been very quickly there, and they would go. Will Smith said it will rain in May.';
    const kept = await filterEntities(text, [
      at(text, 'She'),
      at(text, 'has been', 'Concept'),
      at(text, 'very quickly', 'Concept'),
      at(text, 'there', 'Location'),
      at(text, 'they would', 'Concept'),
      at(text, 'Will Smith'),
      at(text, 'will', 'Concept'),
      at(text, 'May', 'Date'),
    ]);
    expect(kept.map((entity) => entity.text)).toEqual(['Will Smith', 'May']);
  });

  it('keeps acronyms and names that only contain a function word', async () => {
    const text = 'The IT team of Only Fools Ltd moved to Here East.';
    const kept = await filterEntities(text, [
      at(text, 'IT', 'Field'),
      at(text, 'Only Fools Ltd', 'Organization'),
      at(text, 'Here East', 'Location'),
    ]);
    expect(kept.map((entity) => entity.text)).toEqual(['IT', 'Only Fools Ltd', 'Here East']);
  });

  it('re-anchors a span on its text, trims it, and drops one the text does not hold', async () => {
    const text = 'Ada Lovelace wrote notes on the Analytical Engine.';
    const kept = await filterEntities(text, [
      { text: 'Analytical Engine', label: 'Technology', score: 0.8, start: 0, end: 17 },
      { text: ' Ada Lovelace', label: 'Person', score: 0.95, start: -1, end: 12 },
      { text: 'Charles Babbage', label: 'Person', score: 0.99, start: 0, end: 15 },
    ]);
    expect(kept).toEqual([
      { text: 'Ada Lovelace', label: 'Person', score: 0.95, start: 0, end: 12 },
      { text: 'Analytical Engine', label: 'Technology', score: 0.8, start: 32, end: 49 },
    ]);
  });

  it('keeps one entity per span, the highest score, and orders by position', async () => {
    const text = 'Python was designed by Guido van Rossum.';
    const kept = await filterEntities(text, [
      at(text, 'Guido van Rossum', 'Person', 0.7),
      at(text, 'Python', 'Language', 0.6),
      at(text, 'Python', 'Technology', 0.8),
      at(text, 'Guido van Rossum', 'Organization', 0.4),
    ]);
    expect(kept.map((entity) => [entity.text, entity.label, entity.score])).toEqual([
      ['Python', 'Technology', 0.8],
      ['Guido van Rossum', 'Person', 0.7],
    ]);
  });

  it('drops names without any ASCII letter or digit, which could not become a node', async () => {
    const text = 'The symbol ∑∑ and the name Zoë.';
    const kept = await filterEntities(text, [at(text, '∑∑', 'Concept'), at(text, 'Zoë')]);
    expect(kept.map((entity) => entity.text)).toEqual(['Zoë']);
  });

  it('reads word classes from the terms given, without tagging the text again', async () => {
    const text = 'Ada met Mark in Rome.';
    const entities = [at(text, 'Ada'), at(text, 'Rome', 'Location')];
    expect((await filterEntities(text, entities)).map((entity) => entity.text)).toEqual(['Ada', 'Rome']);
    // Terms that read "Rome" as an adverb: the span is then only a function word, and is dropped.
    const rome = text.indexOf('Rome');
    const terms = [{ text: 'Rome', pre: ' ', post: '.', tags: ['Adverb'], start: rome, end: rome + 4 }];
    expect((await filterEntities(text, entities, terms)).map((entity) => entity.text)).toEqual(['Ada']);
  });
});
