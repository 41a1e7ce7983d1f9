import { extractCode } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { descriptions, edge, edgeList, node } from './support';

const SOURCE = `"""Storage helpers."""
import os.path, json as j
from collections import OrderedDict, defaultdict as dd
from . import sibling
from __future__ import annotations
from typing import *


def load(path, default=fallback()):
    """Read a JSON file.

    Returns the parsed value."""
    with open(path) as handle:
        return j.load(handle)


class Cache(Base):
    '''An in-memory cache.'''

    size = compute_size()

    def __init__(self):
        self.items = OrderedDict()

    @staticmethod
    def key(value):
        def normalize(text):
            return text.strip().lower()
        return normalize(str(value))

    async def refresh(self):
        await self.store.flush()
        super().refresh()


print(load("a.json"))
`;

describe('Python extraction', () => {
  it('emits the module, imports, functions, classes and methods with docstrings', async () => {
    const result = await extractCode('lib/storage/cache.py', SOURCE, { sourceDocId: 'doc-1' });
    expect(result.language).toBe('python');
    expect(descriptions(result)).toEqual({
      cache: 'Module cache (python)',
      os: 'Imported symbol: os',
      j: 'Imported symbol: j',
      OrderedDict: 'Imported symbol: OrderedDict',
      dd: 'Imported symbol: dd',
      sibling: 'Imported symbol: sibling',
      annotations: 'Imported symbol: annotations',
      load: 'Read a JSON file. Returns the parsed value.',
      Cache: 'An in-memory cache.',
      __init__: 'method definition: __init__',
      key: 'method definition: key',
      normalize: 'function definition: normalize',
      refresh: 'method definition: refresh',
    });
    for (const n of result.nodes) {
      expect(n).toMatchObject({ kind: 'entity', label: 'Concept' });
      for (const mention of n.mentions) {
        expect(mention).toMatchObject({ source_doc_id: 'doc-1', ts_start: 0, ts_end: 0, modality: 'code' });
      }
    }
  });

  it('links module, classes and functions by defines, imports and calls (a bare decorator is no call)', async () => {
    const result = await extractCode('lib/storage/cache.py', SOURCE);
    expect(edgeList(result)).toEqual(
      [
        'cache imports os',
        'cache imports j',
        'cache imports OrderedDict',
        'cache imports dd',
        'cache imports sibling',
        'cache imports annotations',
        'cache defines load',
        'cache defines Cache',
        'Cache defines __init__',
        'Cache defines key',
        'Cache defines refresh',
        'load calls fallback',
        'load calls open',
        'load calls load',
        'cache calls compute_size',
        'cache calls print',
        'cache calls load',
        '__init__ calls OrderedDict',
        'key calls normalize',
        'key calls str',
        'normalize calls strip',
        'normalize calls lower',
        'refresh calls flush',
        'refresh calls super',
        'refresh calls refresh',
      ].sort(),
    );
  });

  it('records segments and evidence spans', async () => {
    const result = await extractCode('lib/storage/cache.py', SOURCE);
    expect(node(result, 'cache')?.mentions).toEqual([
      {
        source_doc_id: 'lib/storage/cache.py',
        segment_id: 'module',
        ts_start: 0,
        ts_end: 0,
        modality: 'code',
        evidence_span: SOURCE.slice(0, 200),
      },
    ]);
    expect(node(result, 'Cache')?.mentions[0]?.segment_id).toBe('class:Cache');
    expect(node(result, 'load')?.mentions[0]?.segment_id).toBe('function:load');
    expect(node(result, 'key')?.mentions[0]?.segment_id).toBe('method:key');
    expect(node(result, 'dd')?.mentions[0]).toMatchObject({
      segment_id: 'import:dd',
      evidence_span: 'from collections import OrderedDict, defaultdict as dd',
    });
    expect(node(result, 'Cache')?.mentions[0]?.evidence_span).toHaveLength(200);
    expect(edge(result, 'refresh', 'calls', 'flush')).toEqual({
      source: 'refresh',
      target: 'flush',
      relation: 'calls',
      evidence_span: 'self.store.flush()',
      segment_id: 'method:refresh',
      ts_start: 0,
      ts_end: 0,
      modality: 'code',
      provenance: 'EXTRACTED',
      source_doc_id: 'lib/storage/cache.py',
      confidence: 1,
    });
    expect(edge(result, 'cache', 'calls', 'print')?.segment_id).toBe('module');
    expect(edge(result, 'cache', 'defines', 'load')?.segment_id).toBe('function:load');
    expect(edge(result, 'cache', 'imports', 'j')?.segment_id).toBe('import:j');
  });

  it('names each import by the name it binds (clarifications: imported names)', async () => {
    const source = [
      'import a.b.c',
      'import a.b as c, d.e',
      'from x import y',
      'from x import y as z, w',
      'from x import *',
      'from . import sibling',
      'from .pkg.mod import (p, q as r)',
      'from __future__ import annotations',
      'from __future__ import division as div, generators',
      '',
    ].join('\n');
    const result = await extractCode('imports.py', source);
    expect(edgeList(result, 'imports')).toEqual(
      [
        'imports imports a',
        'imports imports c',
        'imports imports d',
        'imports imports y',
        'imports imports z',
        'imports imports w',
        'imports imports sibling',
        'imports imports p',
        'imports imports r',
        'imports imports annotations',
        'imports imports div',
        'imports imports generators',
      ].sort(),
    );
    expect(node(result, 'annotations')?.mentions[0]).toMatchObject({
      segment_id: 'import:annotations',
      evidence_span: 'from __future__ import annotations',
    });
    expect(node(result, 'a')?.mentions[0]?.evidence_span).toBe('import a.b.c');
  });

  it('cuts docstrings to 300 characters', async () => {
    const long = 'word '.repeat(100);
    const result = await extractCode('doc.py', `def f():\n    """${long}"""\n    pass\n`);
    expect(node(result, 'f')?.description).toBe(long.trim().slice(0, 300));
  });
});
