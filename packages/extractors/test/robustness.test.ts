import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  extractCode,
  isCodeFile,
  languageOf,
  parseOnly,
  UnsupportedCodeFileError,
} from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { descriptions, edgeList } from './support';

describe('code extractor robustness', () => {
  it('keeps what a broken Python file still holds', async () => {
    const result = await extractCode(
      'broken.py',
      'def ok():\n    return helper()\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self): run()\n',
    );
    expect(descriptions(result)).toMatchObject({
      ok: 'function definition: ok',
      Fine: 'class definition: Fine',
    });
    expect(edgeList(result)).toEqual(expect.arrayContaining(['ok calls helper', 'broken defines ok']));
  });

  it('keeps what broken TypeScript and Go files still hold', async () => {
    const ts = await extractCode(
      'broken.ts',
      'export function a() { b(); }\nclass {{{ oops\nfunction c() { d(); }\n',
    );
    expect(edgeList(ts, 'calls')).toEqual(expect.arrayContaining(['a calls b']));
    const go = await extractCode('broken.go', 'package p\nfunc A() { B() }\nfunc (x *T) ( {\n');
    expect(edgeList(go)).toEqual(expect.arrayContaining(['broken defines A', 'A calls B']));
  });

  it('yields at least the module node for binary junk and invalid UTF-8, in every language', async () => {
    const bytes = readFileSync(createRequire(import.meta.url).resolve('tree-sitter-go/tree-sitter-go.wasm'));
    const junk = [
      new TextDecoder().decode(bytes.subarray(0, 8_000)),
      bytes.subarray(0, 8_000).toString('latin1'),
      '\u0000\ud800\udfff\ufffd\u0001def \u0000 class',
      '',
    ];
    for (const path of ['junk.py', 'junk.js', 'junk.ts', 'junk.tsx', 'junk.go']) {
      for (const text of junk) {
        const result = await extractCode(path, text);
        expect(result.nodes[0]).toMatchObject({
          name: 'junk',
          description: `Module junk (${result.language})`,
        });
        for (const edge of result.edges) expect(edge.evidence_span.length).toBeLessThanOrEqual(200);
      }
    }
  });

  it('skips names that normalize to an empty id', async () => {
    const result = await extractCode('odd.js', 'function _() { $(); π(); ok(); }\nconst __ = () => ok2();\n');
    expect(result.nodes.map((n) => n.name)).toEqual(['odd']);
    expect(edgeList(result)).toEqual(['odd calls ok', 'odd calls ok2']);
  });

  it('names the module after the file, or the whole file name when the stem has no letter', async () => {
    expect((await extractCode('a/b/_.py', 'x = 1')).nodes[0]?.name).toBe('_.py');
    expect((await extractCode('C:\\repo\\src\\main.go', 'package main')).nodes[0]?.name).toBe('main');
  });

  it('never cuts an evidence span inside a surrogate pair', async () => {
    const source = `def f():\n    return "${'😀'.repeat(150)}"\n`;
    const span = (await extractCode('emoji.py', source)).nodes[1]?.mentions[0]?.evidence_span ?? '';
    expect(span.length).toBeLessThanOrEqual(200);
    expect(span.endsWith('\ud83d')).toBe(false);
  });

  it('rejects a path that is not code with a 415', async () => {
    await expect(extractCode('notes.md', '# hi')).rejects.toBeInstanceOf(UnsupportedCodeFileError);
    await expect(extractCode('notes.md', '# hi')).rejects.toMatchObject({ status: 415 });
  });
});

describe('languageOf and isCodeFile', () => {
  it('maps every supported extension to its language', () => {
    const expected = {
      'a.py': 'python',
      'a.js': 'javascript',
      'a.jsx': 'javascript',
      'a.mjs': 'javascript',
      'a.cjs': 'javascript',
      'a.ts': 'typescript',
      'a.tsx': 'typescript',
      'a.mts': 'typescript',
      'a.cts': 'typescript',
      'dir.v2/A.GO': 'go',
    };
    for (const [path, language] of Object.entries(expected)) {
      expect(languageOf(path)).toBe(language);
      expect(isCodeFile(path)).toBe(true);
    }
  });

  it('answers no for other files', () => {
    for (const path of ['README.md', 'a.pyc', 'Makefile', '.ts', 'src.go/file', 'a.rs']) {
      expect(languageOf(path)).toBeUndefined();
      expect(isCodeFile(path)).toBe(false);
    }
  });
});

describe('parseOnly', () => {
  it("answers the tree's root node type", async () => {
    expect(await parseOnly('a.py', 'x = 1')).toBe('module');
    expect(await parseOnly('a.ts', 'let x = 1;')).toBe('program');
    expect(await parseOnly('a.go', 'package a')).toBe('source_file');
  });
});
