/**
 * Accuracy against the TypeScript compiler: the extractor's `defines`, `imports` and `calls` edges (and its
 * definition nodes) on the TypeScript sources of apache-arrow and zod in node_modules, compared as sets of
 * (file, source name, target name) triples with what `ts.createSourceFile` reports under the same rules.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { extractCode } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { addExtraction, emptyFacts, report, scoreAll } from './oracle-score';
import { oracleFacts } from './ts-oracle';

const root = path.resolve(import.meta.dirname, '../../..');
const CORPORA = ['node_modules/apache-arrow/src', 'node_modules/zod/src'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return tsFiles(full);
      return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
    });
}

describe('code extractor accuracy against the TypeScript compiler', () => {
  it('reaches the recall and precision targets on apache-arrow and zod sources', async () => {
    const files = CORPORA.flatMap((corpus) => tsFiles(path.join(root, corpus)));
    expect(files.length).toBeGreaterThan(300);
    const expected = emptyFacts();
    const found = emptyFacts();
    for (const file of files) {
      const relative = path.relative(root, file);
      const text = readFileSync(file, 'utf8');
      const module = path.basename(file, path.extname(file));
      oracleFacts(relative, text, module, expected);
      addExtraction(relative, await extractCode(relative, text), found);
    }

    const rows = scoreAll(found, expected);
    console.log(
      report(
        `Accuracy on ${files.length} TypeScript files (apache-arrow, zod) against ts.createSourceFile:`,
        rows,
      ),
    );

    for (const row of [rows['definition nodes'], rows.defines]) {
      expect(row.precision).toBeGreaterThanOrEqual(0.98);
      expect(row.recall).toBeGreaterThanOrEqual(0.98);
    }
    expect(rows.imports.precision).toBeGreaterThanOrEqual(0.95);
    expect(rows.imports.recall).toBeGreaterThanOrEqual(0.95);
    expect(rows['calls (by name)'].precision).toBeGreaterThanOrEqual(0.9);
    expect(rows['calls (by name)'].recall).toBeGreaterThanOrEqual(0.9);
  });
});
