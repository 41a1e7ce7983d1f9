import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TaggingPool } from '../src/documents/compromise';
import { referenceTagText, tagText } from '../src/documents/compromise-tagging.mjs';

const root = path.resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

/** Real prose: news-like sentences, and the first pieces of a package README (Markdown, code, links). */
const TEXTS = [
  'Marie Curie was born in Warsaw and moved to Paris, where she worked at the University of Paris. ' +
    'Dr. Pierre Curie met her on January 5, 1895 in Paris. In 1903 they shared the Nobel Prize with ' +
    'Henri Becquerel; the Royal Swedish Academy of Sciences announced it on Tuesday, November 12.',
  'It was very nice and then we all went home quickly, thanks to the bus from Toronto, Canada.',
  ...[0, 1, 2].map((piece) =>
    readFileSync(path.join(root, 'node_modules/compromise/README.md'), 'utf8').slice(
      piece * 2000,
      piece * 2000 + 2000,
    ),
  ),
];

describe('tagText', () => {
  it("tags every term as compromise's own sweep and chunker do", () => {
    for (const text of TEXTS) expect(tagText(text)).toEqual(referenceTagText(text));
  });

  it('finds the same selections with selectionsOnly, with the tags of a full tagging on their terms', () => {
    let pruned = 0;
    for (const text of TEXTS) {
      const full = tagText(text);
      const only = tagText(text, { selectionsOnly: true });
      expect(only.selections).toEqual(full.selections);
      const selected = Object.values(only.selections).flat(2);
      expect(new Set(only.terms)).toEqual(new Set(selected));
      for (const term of only.terms) expect(full.terms).toContainEqual(term);
      pruned += full.terms.length - only.terms.length;
    }
    expect(pruned).toBeGreaterThan(0);
    expect(tagText(TEXTS[0]!, { selectionsOnly: true }).selections.people.length).toBeGreaterThan(2);
  });
});

describe('TaggingPool', () => {
  it('tags on its threads as in this thread, concurrent texts each with its own answer', async () => {
    const pool = new TaggingPool(2);
    try {
      const answers = await Promise.all(TEXTS.map((text) => pool.tag(text, { selectionsOnly: true })));
      expect(answers).toEqual(TEXTS.map((text) => tagText(text, { selectionsOnly: true })));
      expect(await pool.tag(TEXTS[1]!)).toEqual(tagText(TEXTS[1]!));
    } finally {
      await pool.close();
    }
  });

  it('tags in this thread when there are no threads, or when a thread cannot start', async () => {
    const missing = new TaggingPool(1, new URL('./fixtures/no-such-module.mjs', import.meta.url));
    expect(await missing.tag(TEXTS[0]!)).toEqual(tagText(TEXTS[0]!));
    expect(await new TaggingPool(0).tag(TEXTS[0]!)).toEqual(tagText(TEXTS[0]!));
  });

  it("fails a task with its thread's error, and a thread's exit fails its task only", async () => {
    const pool = new TaggingPool(1, new URL('./fixtures/failing-tagger.mjs', import.meta.url));
    try {
      await expect(pool.tag('fail')).rejects.toThrow("cannot tag 'fail'");
      await expect(pool.tag('exit')).rejects.toThrow('the tagging thread exited with code 3');
      await expect(pool.tag('again')).rejects.toThrow("cannot tag 'again'");
    } finally {
      await pool.close();
    }
  });

  it('leaves the process free to exit once its threads are idle, warmed or not', async () => {
    const script = [
      "const { tagText, warmTagging } = await import('./packages/extractors/src/documents/compromise.ts');",
      'warmTagging();',
      "const tagged = await tagText('Ada Lovelace met Charles Babbage in London.', { selectionsOnly: true });",
      'console.log(JSON.stringify(tagged.selections.people.length));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, TESSERA_ENTITY_THREADS: '2' },
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe('2');
  });
});
