import {
  CompromiseEntityExtractor,
  createEntityExtractor,
  parseExtractorsEnv,
  proseOf,
} from '@tessera/extractors';
import { describe, expect, it } from 'vitest';

const context = { sourceDocId: 'docs/curie.md', segmentId: 'document' };

describe('CompromiseEntityExtractor', () => {
  const extractor = new CompromiseEntityExtractor();

  it('names itself honestly and declares the four labels it covers', () => {
    expect(extractor.name).toBe('embedded:compromise');
    expect(extractor.labels).toEqual(['Person', 'Organization', 'Location', 'Date']);
    expect(createEntityExtractor(parseExtractorsEnv({})).name).toBe('embedded:compromise');
  });

  it('finds people, places, organizations and dates in a real sentence, with their offsets', async () => {
    const text =
      'Marie Curie was born in Warsaw and moved to Paris, where she worked at the University of Paris. ' +
      'Dr. Pierre Curie met her on January 5, 1895 in Paris.';
    const entities = await extractor.extract(text, context);
    const found = entities.map((entity) => [entity.text, entity.label]);
    expect(found).toContainEqual(['Marie Curie', 'Person']);
    expect(found).toContainEqual(['Paris', 'Location']);
    expect(found).toContainEqual(['Warsaw', 'Location']);
    expect(found).toContainEqual(['University of Paris', 'Organization']);
    expect(found).toContainEqual(['Pierre Curie', 'Person']);
    expect(found).toContainEqual(['January 5, 1895', 'Date']);
    // pronouns are not entities
    expect(found.map(([name]) => name)).not.toContain('she');
    for (const entity of entities) {
      expect(text.slice(entity.start, entity.end)).toBe(entity.text);
      expect(entity.score).toBe(1);
    }
  });

  it('answers nothing for text without entities, and for empty text', async () => {
    expect(await extractor.extract('it was very nice and then we all went home quickly.', context)).toEqual(
      [],
    );
    expect(await extractor.extract('   \n ', context)).toEqual([]);
  });

  it('is deterministic', async () => {
    const text = 'Albert Einstein lectured in Berlin, Germany and later at Princeton University.';
    const first = await extractor.extract(text, context);
    expect(first.length).toBeGreaterThan(2);
    expect(await extractor.extract(text, context)).toEqual(first);
    expect(await new CompromiseEntityExtractor().extract(text, context)).toEqual(first);
  });
});

describe('proseOf', () => {
  it('blanks code, URLs and markup without moving any offset', () => {
    const text =
      'Ask Ada Lovelace.\n```js\nconst Paris = 1;\n```\nSee `London()` at https://example.org/Rome and <b>x</b>.';
    const prose = proseOf(text);
    expect(prose).toHaveLength(text.length);
    expect(prose).toContain('Ask Ada Lovelace.');
    expect(prose).not.toMatch(/Paris|London|Rome|<b>/);
    expect(prose.indexOf('and')).toBe(text.indexOf('and'));
  });

  it('finds no entities inside code blocks', async () => {
    const entities = await new CompromiseEntityExtractor().extract('```\nMarie Curie lived in Paris.\n```', {
      sourceDocId: 'a.md',
      segmentId: 'chunk_0',
    });
    expect(entities).toEqual([]);
  });
});
