/**
 * Accuracy against Python's own parser: the extractor's definitions and `defines`, `imports` and `calls` edges
 * on a fixed sample of the standard library of the `python3` on PATH, compared per file with what
 * `py-oracle.py` reads from `ast.parse` under the same rules (clarifications, "Code extractor" and "imported
 * names"). The sample: 300 of the library's .py files outside site-packages, every k-th in path order (see
 * py-oracle.py), so a given Python release always gives the same files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractCode } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { addExtraction, addOracleFile, emptyFacts, report, runOracle, scoreAll } from './oracle-score';

const SAMPLE = 300;

/**
 * Measured on Python 3.11.7 (299 files judged): 100% on every row. The whole library (1,779 files) scores 99.92%
 * on definitions and defines and 99.99% on calls' recall, all in test/test_compile.py and two others, where
 * tree-sitter recovers differently from CPython on deliberately extreme code. The margin is for later
 * releases, whose syntax may be ahead of the grammar. The pre-amendment import rule (`import a.b` → `a.b`, no
 * `__future__` imports) scored 96.85% precision and 97.66% recall on imports here: below the target.
 */
function assertTargets(rows: ReturnType<typeof scoreAll>) {
  for (const kind of ['definition nodes', 'defines', 'imports'] as const) {
    expect(rows[kind].precision, kind).toBeGreaterThanOrEqual(0.99);
    expect(rows[kind].recall, kind).toBeGreaterThanOrEqual(0.99);
  }
  expect(rows['calls (by name)'].precision).toBeGreaterThanOrEqual(0.98);
  expect(rows['calls (by name)'].recall).toBeGreaterThanOrEqual(0.98);
}

describe("code extractor accuracy against Python's ast module", () => {
  it('reaches the recall and precision targets on a sample of the standard library', async () => {
    const run = await runOracle(
      'python3',
      [path.join(import.meta.dirname, 'py-oracle.py'), '--sample', String(SAMPLE)],
      {
        cwd: import.meta.dirname,
        missing:
          "The Python accuracy test runs Python's ast module through python3 (Debian: apt-get install -y python3).",
      },
    );
    const skipped = run.files.filter((file) => file.skipped);
    const judged = run.files.filter((file) => !file.skipped);
    expect(run.files).toHaveLength(SAMPLE);
    // Files ast.parse refuses are the test suite's deliberate syntax errors and Python 2 samples.
    expect(skipped.length).toBeLessThanOrEqual(SAMPLE * 0.05);

    const expected = emptyFacts();
    const found = emptyFacts();
    for (const facts of judged) {
      const relative = path.relative(run.root, facts.file);
      addOracleFile(relative, facts, expected);
      addExtraction(relative, await extractCode(relative, readFileSync(facts.file, 'utf8')), found);
    }

    const rows = scoreAll(found, expected);
    console.log(
      [
        report(
          `Accuracy on ${judged.length} Python files (${run.version} standard library, ${run.root}) against ast.parse:`,
          rows,
        ),
        ...skipped.map((file) => `  skipped ${path.relative(run.root, file.file)}: ${file.skipped}`),
      ].join('\n'),
    );

    assertTargets(rows);
  }, 180_000);
});
