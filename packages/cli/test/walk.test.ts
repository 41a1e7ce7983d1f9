import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkTree } from '../src/walk';

function tree(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'walk-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), content);
  }
  return root;
}

describe('walkTree', () => {
  it('finds code files and text siblings, honouring nested .gitignore files and skipping node_modules', async () => {
    const root = tree({
      '.gitignore': 'dist/\n*.gen.ts\n',
      'src/a.ts': 'export const a = 1;',
      'src/b.gen.ts': 'export const b = 1;',
      'src/lib/.gitignore': 'local.py\n',
      'src/lib/local.py': 'x = 1',
      'src/lib/kept.py': 'y = 2',
      'dist/out.js': 'var x;',
      'node_modules/pkg/index.js': 'module.exports = 1;',
      'README.md': '# Project',
      'notes.txt': 'notes',
      'data.csv': 'a,b',
      'empty.go': '',
    });
    const walk = await walkTree(root);
    expect(walk.code.map((f) => f.relative)).toEqual(['src/a.ts', 'src/lib/kept.py']);
    expect(walk.text.map((f) => f.relative)).toEqual(['notes.txt', 'README.md']);
  });

  it('skips binaries and files over the size limit, saying why', async () => {
    const root = tree({
      'ok.js': 'let ok = true;',
      'blob.js': Buffer.from([0x63, 0x00, 0x01]),
      'huge.js': 'x'.repeat(2048),
    });
    const walk = await walkTree(root, 1024);
    expect(walk.code.map((f) => f.relative)).toEqual(['ok.js']);
    expect(walk.skipped).toEqual([
      { relative: 'blob.js', reason: 'binary content' },
      { relative: 'huge.js', reason: 'over 1 KB' },
    ]);
  });

  it('never leaves the root through a symlink, and reaches linked files inside it once', async () => {
    const outside = tree({ 'secret.ts': 'export const secret = 1;' });
    const root = tree({ 'src/real.ts': 'export const real = 1;' });
    symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'escape.ts'));
    symlinkSync(outside, path.join(root, 'escape-dir'));
    symlinkSync(path.join(root, 'src'), path.join(root, 'loop'));
    symlinkSync(path.join(root, 'src/real.ts'), path.join(root, 'alias.ts'));
    const walk = await walkTree(root);
    expect(walk.code.map((f) => f.relative)).toEqual(['alias.ts', 'src/real.ts']);
    expect(walk.skipped.map((s) => s.relative).sort()).toEqual(['escape-dir', 'escape.ts']);
    expect(walk.skipped[0]!.reason).toBe('symlink leading outside the root');
  });

  it('walks from a root given through a symlink as the real directory', async () => {
    const root = tree({ 'a.go': 'package a' });
    const link = path.join(mkdtempSync(path.join(tmpdir(), 'walk-link-')), 'repo');
    symlinkSync(root, link);
    const walk = await walkTree(link);
    expect(walk.code.map((f) => f.relative)).toEqual(['a.go']);
    expect(walk.root).not.toBe(link);
  });

  it('refuses a root that is not a directory', async () => {
    const root = tree({ 'a.ts': 'x' });
    await expect(walkTree(path.join(root, 'a.ts'))).rejects.toThrow(/not a directory/);
  });
});
