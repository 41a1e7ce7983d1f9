import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { arrowType, definitionHash, SchemaCatalog } from '../src/index';

const shipped = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas'));

describe('SchemaCatalog', () => {
  it('loads every shipped template under its base name', () => {
    for (const base of [
      'video_frames',
      'knowledge_graph',
      'document_text',
      'code',
      'image',
      'audio',
      'wiki',
      'agent_memories',
    ]) {
      expect(shipped.get(base)?.name).toBe(base);
    }
  });

  it('lists base names longest first for prefix matching', () => {
    const names = shipped.baseNames();
    expect(names[0]!.length).toBeGreaterThanOrEqual(names.at(-1)!.length);
  });

  it('refuses a template whose name differs from its file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'schemas-'));
    writeFileSync(
      path.join(dir, 'a_schema.json'),
      JSON.stringify({ name: 'b', document: { fields: [{ name: 'x', type: 'string' }] } }),
    );
    expect(() => new SchemaCatalog(dir)).toThrow(/names itself 'b'; expected 'a'/);
  });
});

describe('definitionHash', () => {
  it('ignores key order and descriptions but not field changes', () => {
    const template = shipped.get('wiki')!;
    const reordered = JSON.parse(JSON.stringify({ document: template.document, name: template.name }));
    expect(definitionHash(reordered)).toBe(definitionHash(template));
    const changed = {
      ...template,
      document: { fields: [...template.document.fields, { name: 'extra', type: 'string' }] },
    };
    expect(definitionHash(changed)).not.toBe(definitionHash(template));
  });
});

describe('arrowType', () => {
  it('maps scalars, arrays, dense and multi-vector tensors', () => {
    expect(String(arrowType('string'))).toBe('Utf8');
    expect(String(arrowType('long'))).toBe('Int64');
    expect(String(arrowType('array<string>'))).toBe('List<Utf8>');
    expect(String(arrowType('tensor<float>(x[768])'))).toBe('FixedSizeList[768]<Float32>');
    expect(String(arrowType('tensor<bfloat16>(token{}, v[128])'))).toBe('List<FixedSizeList[128]<Float32>>');
    expect(String(arrowType('tensor<int8>(token{}, v[16])'))).toBe('List<FixedSizeList[16]<Uint8>>');
  });

  it('refuses an unknown type', () => {
    expect(() => arrowType('tensor<complex>(x[2])')).toThrow(/Unsupported field type/);
  });
});
