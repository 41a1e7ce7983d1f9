import { describe, expect, it } from 'vitest';
import { JsonFieldText } from '../src/index';

/** The field's text as `JsonFieldText` publishes it when `json` arrives in pieces of `size` characters. */
function published(json: string, field: string, size: number): string[] {
  const reader = new JsonFieldText(field);
  const out: string[] = [];
  for (let i = 0; i < json.length; i += size) {
    const delta = reader.push(json.slice(i, i + size));
    if (delta !== '') out.push(delta);
  }
  return out;
}

describe('JsonFieldText', () => {
  const answer = {
    sources: ['a.md', 'b "quoted".md'],
    nested: { answer: 'not the field: it is one level down', list: [{ answer: 'nor this' }] },
    answer: 'Line one,\n"quoted" \\ back\tslash, é, 😀 and \u0001 control.',
    after: 'not published',
  };
  const json = JSON.stringify(answer);

  it('publishes exactly the decoded text of the top-level field, however the JSON is cut', () => {
    for (const size of [1, 2, 3, 5, 7, 16, json.length]) {
      expect(published(json, 'answer', size).join(''), `pieces of ${size}`).toBe(answer.answer);
    }
    // Escaped unicode as a model may write it, cut inside the escapes and between a surrogate pair's halves.
    const escaped = '{"answer":"caf\\u00e9 \\ud83d\\ude00!"}';
    for (let size = 1; size <= 6; size++) {
      const deltas = published(escaped, 'answer', size);
      expect(deltas.join('')).toBe('café 😀!');
      // No delta ends in half a character.
      for (const delta of deltas) expect(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/.test(delta), delta).toBe(false);
    }
  });

  it('publishes as the text arrives, not when the object ends', () => {
    const reader = new JsonFieldText('summary');
    expect(reader.push('{"summary":"Late in')).toBe('Late in');
    expect(reader.push('voices carry')).toBe('voices carry');
    expect(reader.push(' a fee."}')).toBe(' a fee.');
  });

  it('publishes nothing when the field is missing, not a string, or named only inside a value', () => {
    expect(published('{"other":"x","count":3}', 'summary', 1)).toEqual([]);
    expect(published('{"summary":["a","b"]}', 'summary', 1)).toEqual([]);
    expect(published('{"note":"\\"summary\\":\\"no\\"","summary":"yes"}', 'summary', 1).join('')).toBe('yes');
  });
});
