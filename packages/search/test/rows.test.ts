import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { arrowType } from '../src/arrow';
import { type DocumentRow, documentTable } from '../src/rows';
import type { SchemaTemplate } from '../src/templates';

const arrow = createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');

const fields = [
  { name: 'document_id', type: 'string' },
  { name: 'text', type: 'string' },
  { name: 'count', type: 'int' },
  { name: 'offset', type: 'long' },
  { name: 'weight', type: 'float' },
  { name: 'score', type: 'double' },
  { name: 'flag', type: 'bool' },
  { name: 'tags', type: 'array<string>' },
  { name: 'lines', type: 'array<int>' },
];
const template = { name: 'rows', document: { fields } } as unknown as SchemaTemplate;

const rows: DocumentRow[] = [
  {
    document_id: 'a',
    text: 'Zürich — 東京 🚀',
    count: 3,
    offset: 12,
    weight: 0.5,
    score: 1 / 3,
    flag: true,
    tags: ['x', 'ÿ', ''],
    lines: [1, 2],
  },
  {
    document_id: 'b',
    text: '',
    count: -7,
    offset: 0,
    weight: -1.25,
    score: 0,
    flag: false,
    tags: [],
    lines: [],
  },
  { document_id: 'c' },
  {
    document_id: 'd',
    text: null,
    count: 2 ** 31 + 5,
    weight: 3.3,
    score: Number.MAX_VALUE,
    flag: null,
    tags: null,
    lines: null,
  },
  ...Array.from({ length: 21 }, (_, i) => ({
    document_id: `e${i}`,
    text: `row ${i}`,
    count: i,
    flag: i % 3 === 0,
    tags: i % 2 ? [`t${i}`] : undefined,
  })),
];

/** A column's values as plain data: lists become arrays. */
const plain = (vector: { toArray(): ArrayLike<unknown> } | null) =>
  Array.from(vector?.toArray() ?? [], (value) =>
    value !== null && typeof value === 'object' && 'toArray' in value
      ? Array.from((value as { toArray(): ArrayLike<unknown> }).toArray())
      : value,
  );

describe('documentTable', () => {
  it("builds every scalar and string-list column with the values apache-arrow's own builders give", () => {
    const table = documentTable(template, rows);
    expect(table.numRows).toBe(rows.length);
    for (const field of fields) {
      const expected = arrow.vectorFromArray(
        rows.map((row) => {
          const value = row[field.name];
          if (value === undefined || value === null) return null;
          return field.type === 'long' ? BigInt(value as number) : value;
        }),
        arrowType(field.type),
      );
      const built = table.getChild(field.name);
      expect(plain(built), field.name).toEqual(plain(expected));
      expect(built?.nullCount, field.name).toBe(expected.nullCount);
    }
  });

  it('builds a string list of any length (150,000 ids in one cell)', () => {
    const ids = Array.from({ length: 150_000 }, (_, i) => `id${i}`);
    const table = documentTable(template, [
      { document_id: 'a', tags: ids },
      { document_id: 'b', tags: ['z'] },
    ]);
    expect(plain(table.getChild('tags'))).toEqual([ids, ['z']]);
  });

  it('keeps a column holding a value of another kind on the general builder', () => {
    const table = documentTable(template, [
      { document_id: 'a', count: '4' as never, tags: ['x', 5] as never },
    ]);
    expect(plain(table.getChild('count'))).toEqual([4]);
    expect(plain(table.getChild('tags'))).toEqual([['x', '5']]);
  });
});
