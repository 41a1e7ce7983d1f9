import { extractCode, parseOnly } from '@tessera/extractors';
import { describe, expect, it, vi } from 'vitest';
import { Language } from 'web-tree-sitter';

describe('grammar loading', () => {
  it('loads each grammar once, even for concurrent first calls, and reuses it', async () => {
    const load = vi.spyOn(Language, 'load');
    await Promise.all([
      extractCode('a.py', 'def f(): pass'),
      extractCode('b.py', 'def g(): pass'),
      parseOnly('c.py', 'x = 1'),
    ]);
    expect(load).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) await extractCode(`d${i}.py`, 'import os');
    await extractCode('e.ts', 'let x = 1;');
    await extractCode('f.mts', 'let y = 2;');
    await extractCode('g.tsx', 'const x = <b />;');
    expect(load).toHaveBeenCalledTimes(3);
    load.mockRestore();
  });
});
