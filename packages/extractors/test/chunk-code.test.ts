import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CODE_CHUNK_CHARS, type CodeChunk, chunkCode, UnsupportedCodeFileError } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';

/**
 * Checks that the chunks cover the file: each chunk's lines are, in order, lines of the file between its
 * start_line and end_line (the first at start_line, the last at end_line), no line is in two chunks, and every
 * non-blank line is in one. Contiguous chunks are placed first; gathered ones (module code, class headers) then
 * take their lines among the rows left. A line longer than the limit may be spread over chunks of that line.
 */
function expectCoverage(source: string, chunks: CodeChunk[]): void {
  const lines = source.split('\n').map((line) => line.replace(/\r$/, ''));
  const owner = new Map<number, number>();
  const take = (row: number, index: number) => {
    if (lines[row]!.trim() === '') return;
    expect(owner.get(row), `line ${row + 1} in two chunks`).toBeUndefined();
    owner.set(row, index);
  };
  const sliced = new Map<number, string[]>();
  const gathered: number[] = [];
  chunks.forEach((chunk, index) => {
    expect(chunk.text.length, `chunk ${index} size`).toBeLessThanOrEqual(CODE_CHUNK_CHARS);
    expect(chunk.start_line).toBeGreaterThanOrEqual(1);
    expect(chunk.end_line).toBeGreaterThanOrEqual(chunk.start_line);
    const line = lines[chunk.start_line - 1]!;
    if (chunk.start_line === chunk.end_line && line.length > CODE_CHUNK_CHARS && line !== chunk.text) {
      expect(line.includes(chunk.text)).toBe(true);
      sliced.set(chunk.start_line - 1, [...(sliced.get(chunk.start_line - 1) ?? []), chunk.text]);
    } else if (lines.slice(chunk.start_line - 1, chunk.end_line).join('\n') === chunk.text) {
      for (let row = chunk.start_line - 1; row < chunk.end_line; row++) take(row, index);
    } else gathered.push(index);
  });
  for (const index of gathered) {
    const chunk = chunks[index]!;
    let row = chunk.start_line - 1;
    const rows: number[] = [];
    for (const text of chunk.text.split('\n')) {
      while (row < chunk.end_line && (lines[row] !== text || (text.trim() !== '' && owner.has(row)))) row++;
      expect(row, `chunk ${index} line '${text}' within ${chunk.start_line}-${chunk.end_line}`).toBeLessThan(
        chunk.end_line,
      );
      rows.push(row++);
    }
    expect(rows[0]).toBe(chunk.start_line - 1);
    expect(rows[rows.length - 1]).toBe(chunk.end_line - 1);
    for (const taken of rows) take(taken, index);
  }
  for (const [row, pieces] of sliced) {
    expect(pieces.join('')).toBe(lines[row]);
    take(row, -1);
  }
  const nonBlank = lines.flatMap((line, row) => (line.trim() === '' ? [] : [row]));
  expect([...owner.keys()].sort((a, b) => a - b)).toEqual(nonBlank);
}

/** `kind symbol start-end` of each chunk. */
function outline(chunks: CodeChunk[]): string[] {
  return chunks.map((chunk) => `${chunk.kind} ${chunk.symbol} ${chunk.start_line}-${chunk.end_line}`);
}

/** `count` Python methods of about 300 characters each. */
function pythonMethods(count: number): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `    def method_${i}(self, value):\n        """Method ${i}."""\n${'        value = value + 1  # step of the computation\n'.repeat(5)}        return value\n`,
  ).join('\n');
}

describe('chunkCode: Python', () => {
  it('makes one chunk per top-level definition with its comments and decorators, and gathers module code', async () => {
    const source = `"""Tools for the demo."""
import os
from pathlib import Path

# Reads the file.
@cache
def read(path):
    """Read a file."""
    return Path(path).read_text()


LIMIT = 10


class Store(Base):
    """A small store."""

    def get(self, key):
        return self.data[key]

if __name__ == "__main__":
    read(os.environ["FILE"])
`;
    const chunks = await chunkCode('tools/demo.py', source);
    expect(outline(chunks)).toEqual(['module demo 1-22', 'function read 5-9', 'class Store 15-19']);
    expect(chunks[0]).toEqual({
      text: '"""Tools for the demo."""\nimport os\nfrom pathlib import Path\nLIMIT = 10\nif __name__ == "__main__":\n    read(os.environ["FILE"])',
      symbol: 'demo',
      kind: 'module',
      start_line: 1,
      end_line: 22,
      docstring: 'Tools for the demo.',
      language: 'python',
    });
    expect(chunks[1]!.text).toBe(
      '# Reads the file.\n@cache\ndef read(path):\n    """Read a file."""\n    return Path(path).read_text()',
    );
    expect(chunks[1]!.docstring).toBe('Read a file.');
    expect(chunks[2]!.docstring).toBe('A small store.');
    expectCoverage(source, chunks);
  });

  it('splits a class over the limit into a header chunk and one chunk per method', async () => {
    const source = `import math\n\n\nclass Big:\n    """Many methods."""\n\n    scale = 2\n\n${pythonMethods(16)}\n    offset = 1\n\n\ndef tail():\n    return math.pi\n`;
    const chunks = await chunkCode('big.py', source);
    expectCoverage(source, chunks);
    const header = chunks.find((chunk) => chunk.kind === 'class')!;
    expect(header).toMatchObject({ symbol: 'Big', start_line: 4, docstring: 'Many methods.' });
    expect(header.text).toBe('class Big:\n    """Many methods."""\n\n    scale = 2\n    offset = 1');
    const methods = chunks.filter((chunk) => chunk.kind === 'method');
    expect(methods.map((chunk) => chunk.symbol)).toEqual(
      Array.from({ length: 16 }, (_, i) => `Big.method_${i}`),
    );
    expect(methods[3]!.docstring).toBe('Method 3.');
    expect(methods[3]!.text.startsWith('    def method_3(self, value):')).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ kind: 'function', symbol: 'tail' });
  });

  it('keeps a class at the limit whole', async () => {
    let methods = 1;
    while (`class Edge:\n${pythonMethods(methods + 1)}`.trimEnd().length <= CODE_CHUNK_CHARS) methods++;
    const source = `class Edge:\n${pythonMethods(methods)}`;
    const chunks = await chunkCode('edge.py', source);
    expect(outline(chunks)).toEqual([`class Edge 1-${source.trimEnd().split('\n').length}`]);
    expectCoverage(source, chunks);
  });

  it('cuts a function longer than the limit by lines', async () => {
    const body = Array.from({ length: 200 }, (_, i) => `    total += compute(${i}, "some argument text")\n`);
    const source = `def long():\n    total = 0\n${body.join('')}    return total\n`;
    const chunks = await chunkCode('long.py', source);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk).toMatchObject({ kind: 'function', symbol: 'long' });
    expect(chunks[0]!.start_line).toBe(1);
    expect(chunks.at(-1)!.end_line).toBe(203);
    expectCoverage(source, chunks);
  });
});

describe('chunkCode: JavaScript', () => {
  it('chunks functions, arrow functions assigned to variables and classes, with their doc comments', async () => {
    const source = `import fs from 'node:fs';
const limit = 3;

/** Reads a file. */
export function read(path) {
  return fs.readFileSync(path, 'utf8');
}

export const twice = (x) => {
  return x * 2;
};

export default class Cache extends Map {
  size = 0;
  get(key) { return super.get(key); }
}

function a() {} function b() {}
console.log(read('x'));
`;
    const chunks = await chunkCode('src/util.mjs', source);
    expect(outline(chunks)).toEqual([
      'module util 1-19',
      'function read 4-7',
      'function twice 9-11',
      'class Cache 13-16',
      'function a 18-18',
    ]);
    expect(chunks[1]!.docstring).toBe('Reads a file.');
    expect(chunks[0]!.text).toBe("import fs from 'node:fs';\nconst limit = 3;\nconsole.log(read('x'));");
    expect(chunks.every((chunk) => chunk.language === 'javascript')).toBe(true);
    expectCoverage(source, chunks);
  });

  it('splits a long class into header and methods, method decorators and comments included', async () => {
    const methods = Array.from(
      { length: 20 },
      (_, i) =>
        `  /** Step ${i}. */\n  step${i}(value) {\n${'    value = transform(value, "a fairly long argument");\n'.repeat(4)}    return value;\n  }\n`,
    ).join('\n');
    const source = `class Pipeline {\n  count = 0;\n\n${methods}\n  last = null;\n}\n`;
    const chunks = await chunkCode('pipeline.js', source);
    expectCoverage(source, chunks);
    expect(chunks[0]).toMatchObject({ kind: 'class', symbol: 'Pipeline', start_line: 1 });
    expect(chunks[0]!.text).toBe('class Pipeline {\n  count = 0;\n  last = null;\n}');
    const methodChunks = chunks.filter((chunk) => chunk.kind === 'method');
    expect(methodChunks).toHaveLength(20);
    expect(methodChunks[5]).toMatchObject({ symbol: 'Pipeline.step5', docstring: 'Step 5.' });
    expect(methodChunks[5]!.text.startsWith('  /** Step 5. */\n  step5(value) {')).toBe(true);
  });

  it('cuts a line longer than the limit into pieces of that line', async () => {
    const minified = `var data=[${Array.from({ length: 2000 }, (_, i) => i).join(',')}];`;
    const source = `${minified}\nfunction f() { return data; }\n`;
    const chunks = await chunkCode('bundle.min.js', source);
    expect(minified.length).toBeGreaterThan(2 * CODE_CHUNK_CHARS);
    const pieces = chunks.filter((chunk) => chunk.kind === 'module');
    expect(pieces.length).toBe(Math.ceil(minified.length / CODE_CHUNK_CHARS));
    expect(pieces.map((chunk) => chunk.text).join('')).toBe(minified);
    expectCoverage(source, chunks);
  });
});

describe('chunkCode: TypeScript', () => {
  it('chunks interfaces, type aliases, declared functions and abstract classes; enums and namespaces are module code', async () => {
    const source = `import type { Options } from './options';

/** A shape. */
export interface Shape {
  area(): number;
}
export type Id = string | number;
declare function log(message: string): void;
export abstract class Base implements Shape {
  abstract area(): number;
  describe(): string { return 'shape'; }
}
enum Color { Red, Green }
namespace Util { export function noop(): void {} }
`;
    const chunks = await chunkCode('shapes.ts', source);
    expect(outline(chunks)).toEqual([
      'module shapes 1-14',
      'interface Shape 3-6',
      'type Id 7-7',
      'function log 8-8',
      'class Base 9-12',
    ]);
    expect(chunks[1]!.docstring).toBe('A shape.');
    expectCoverage(source, chunks);
  });

  it('reads TSX and CRLF line ends', async () => {
    const source =
      'import React from "react";\r\n\r\nexport function App() {\r\n  return <div>hi</div>;\r\n}\r\n';
    const chunks = await chunkCode('App.tsx', source);
    expect(outline(chunks)).toEqual(['module App 1-1', 'function App 3-5']);
    expect(chunks[1]!.text).toBe('export function App() {\n  return <div>hi</div>;\n}');
    expectCoverage(source, chunks);
  });

  it('covers every line of real TypeScript sources within the limit (apache-arrow)', async () => {
    const root = path.resolve('node_modules/apache-arrow/src');
    const files = (await readdir(root, { recursive: true }))
      .filter((file) => file.endsWith('.ts'))
      .sort()
      .slice(0, 60);
    expect(files.length).toBeGreaterThan(20);
    let split = 0;
    for (const file of files) {
      const source = await readFile(path.join(root, file), 'utf8');
      const chunks = await chunkCode(file, source);
      expectCoverage(source, chunks);
      if (chunks.some((chunk) => chunk.kind === 'method')) split++;
    }
    expect(split).toBeGreaterThan(0);
  });
});

describe('chunkCode: Go', () => {
  it('chunks functions, methods by receiver, structs, interfaces and grouped types', async () => {
    const source = `// Package shop sells things.
package shop

import (
	"fmt"
)

// Item is one thing for sale.
type Item struct {
	Name string
}

type (
	Seller interface{ Sell(Item) error }
	Price  int
)

var stock = map[string]Item{}

// Sell sells an item.
func (s *Shop) Sell(item Item) error {
	fmt.Println(item.Name)
	return nil
}

func main() {}
`;
    const chunks = await chunkCode('shop/shop.go', source);
    expect(outline(chunks)).toEqual([
      'module shop 1-18',
      'struct Item 8-11',
      'type Seller, Price 13-16',
      'method Shop.Sell 20-24',
      'function main 26-26',
    ]);
    expect(chunks[1]!.docstring).toBe('Item is one thing for sale.');
    expect(chunks[3]!.docstring).toBe('Sell sells an item.');
    expect(chunks[0]!.text).toBe(
      '// Package shop sells things.\npackage shop\n\nimport (\n\t"fmt"\n)\nvar stock = map[string]Item{}',
    );
    expectCoverage(source, chunks);
  });

  it('cuts a struct longer than the limit by lines', async () => {
    const fields = Array.from({ length: 150 }, (_, i) => `\tField${i} string \`json:"field_${i}"\`\n`).join(
      '',
    );
    const source = `package big\n\ntype Wide struct {\n${fields}}\n`;
    const chunks = await chunkCode('big.go', source);
    const structs = chunks.filter((chunk) => chunk.kind === 'struct');
    expect(structs.length).toBeGreaterThan(1);
    expect(structs.every((chunk) => chunk.symbol === 'Wide')).toBe(true);
    expectCoverage(source, chunks);
  });
});

describe('chunkCode: edge cases', () => {
  it('answers no chunk for an empty or blank file', async () => {
    expect(await chunkCode('empty.py', '')).toEqual([]);
    expect(await chunkCode('blank.ts', '\n  \n\t\n')).toEqual([]);
  });

  it('chunks a file that does not parse as module code and definitions it can still read', async () => {
    const source = 'def broken(:\n    pass\n\ndef fine():\n    return 1\n';
    const chunks = await chunkCode('broken.py', source);
    expectCoverage(source, chunks);
    expect(chunks.some((chunk) => chunk.symbol === 'fine' && chunk.kind === 'function')).toBe(true);
  });

  it('rejects a path that is not a code file', async () => {
    await expect(chunkCode('notes.md', '# title')).rejects.toBeInstanceOf(UnsupportedCodeFileError);
  });
});
