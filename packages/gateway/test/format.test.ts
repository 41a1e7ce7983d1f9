import { parseMarkdownV2 } from '@tessera/testing/telegram';
import { describe, expect, it } from 'vitest';
import { escapeMarkdown, MESSAGE_LIMIT, resultText, splitEscaped } from '../src/index';

describe('escapeMarkdown', () => {
  it('escapes every MarkdownV2 reserved character, so Telegram shows the text as written', () => {
    const text = 'a_b*c[d](e)~f`g>h#i+j-k=l|m{n}o.p!q\\r';
    const escaped = escapeMarkdown(text);
    expect(parseMarkdownV2(escaped)).toEqual({ text });
    expect(parseMarkdownV2(text)).toHaveProperty('error');
  });
});

describe('splitEscaped', () => {
  it('splits long texts under the limit, at line breaks, never inside an escape, losing nothing', () => {
    const line = 'Rotate keys every 90 days (see policy #4.2)!';
    const text = Array.from({ length: 400 }, (_, i) => `${i}. ${line}`).join('\n');
    const pieces = splitEscaped(text);
    expect(pieces.length).toBeGreaterThan(1);
    const shown = pieces.map((piece) => {
      expect(piece.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      const parsed = parseMarkdownV2(piece);
      if ('error' in parsed) throw new Error(parsed.error);
      return parsed.text;
    });
    expect(shown.join('\n').replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' '));
    // A text of nothing but reserved characters: every piece still parses.
    for (const piece of splitEscaped('.'.repeat(10_000))) {
      expect(piece.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      expect(parseMarkdownV2(piece)).not.toHaveProperty('error');
    }
    expect(splitEscaped('')).toEqual([]);
  });
});

describe('resultText', () => {
  it('tells hits, summaries, reports, files and the gateway’s routed result', () => {
    const hits = {
      results: [{ source_doc_id: 'keys.md', text: 'Rotate keys every ninety days.' }],
      count: 1,
    };
    expect(resultText(hits)).toBe('1. keys.md\nRotate keys every ninety days.');
    expect(resultText({ results: [] })).toBe('No results.');
    expect(resultText({ summary: 'Keys rotate.', method: 'extractive' })).toBe('Keys rotate.');
    expect(resultText({ routed_to: 'search_agent', result: hits })).toContain('keys.md');
    expect(
      resultText({ report: { title: 'Keys', sections: [{ heading: 'Rotation', body: 'Every 90 days.' }] } }),
    ).toBe('Keys\n\nRotation\nEvery 90 days.');
    expect(resultText({ files: [{ path: 'a.py', content: 'print(1)' }], explanation: 'Prints.' })).toBe(
      'Prints.\n\na.py:\nprint(1)',
    );
  });
});
