/**
 * Accuracy against the TypeScript compiler: the extractor's `defines`, `imports` and `calls` edges (and its
 * definition nodes) on the TypeScript sources of apache-arrow and zod in node_modules, compared as sets of
 * (file, source name, target name) triples with what `ts.createSourceFile` reports under the same rules.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { extractCode } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { emptyFacts, type OracleFacts, oracleFacts, type Triple } from './ts-oracle';

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

interface Score {
  precision: number;
  recall: number;
  expected: number;
  found: number;
  missing: Triple[];
  extra: Triple[];
}

function score(found: Set<Triple>, expected: Set<Triple>): Score {
  const missing = [...expected].filter((triple) => !found.has(triple));
  const extra = [...found].filter((triple) => !expected.has(triple));
  const hits = found.size - extra.length;
  return {
    precision: found.size === 0 ? 1 : hits / found.size,
    recall: expected.size === 0 ? 1 : hits / expected.size,
    expected: expected.size,
    found: found.size,
    missing,
    extra,
  };
}

const readable = (triple: Triple) => triple.split('\u0000').join(' | ');

describe('code extractor accuracy against the TypeScript compiler', () => {
  it('reaches the recall and precision targets on apache-arrow and zod sources', async () => {
    const files = CORPORA.flatMap((corpus) => tsFiles(path.join(root, corpus)));
    expect(files.length).toBeGreaterThan(300);
    const expected = emptyFacts();
    const found: OracleFacts = emptyFacts();
    for (const file of files) {
      const relative = path.relative(root, file);
      const text = readFileSync(file, 'utf8');
      const module = path.basename(file, path.extname(file));
      oracleFacts(relative, text, module, expected);
      const { nodes, edges } = await extractCode(relative, text);
      for (const edge of edges) {
        found[edge.relation].add(`${relative}\u0000${edge.source}\u0000${edge.target}`);
      }
      for (const node of nodes) {
        for (const mention of node.mentions) {
          if (/^(function|method|class):/.test(mention.segment_id)) {
            found.definitions.add(`${relative}\u0000${mention.segment_id}`);
          }
        }
      }
    }

    const rows = {
      'definition nodes': score(found.definitions, expected.definitions),
      defines: score(found.defines, expected.defines),
      imports: score(found.imports, expected.imports),
      'calls (by name)': score(found.calls, expected.calls),
    };
    const percent = (value: number) => `${(100 * value).toFixed(2)}%`;
    console.log(
      [
        `Accuracy on ${files.length} TypeScript files (apache-arrow, zod) against ts.createSourceFile:`,
        'kind              oracle  extractor  precision  recall',
        ...Object.entries(rows).map(
          ([kind, row]) =>
            `${kind.padEnd(16)} ${String(row.expected).padStart(7)} ${String(row.found).padStart(10)}  ${percent(row.precision).padStart(9)}  ${percent(row.recall).padStart(7)}`,
        ),
        ...Object.entries(rows).flatMap(([kind, row]) => [
          ...row.missing.slice(0, 5).map((triple) => `  ${kind} missed: ${readable(triple)}`),
          ...row.extra.slice(0, 5).map((triple) => `  ${kind} extra:  ${readable(triple)}`),
        ]),
      ].join('\n'),
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
