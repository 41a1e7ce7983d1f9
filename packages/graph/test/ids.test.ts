import { describe, expect, it } from 'vitest';
import { edgeId, normalizeNodeId, pythonFloat } from '../src/ids';

describe('normalizeNodeId', () => {
  it.each([
    ["What's New?", 'what_s_new'],
    ['Café au lait', 'cafe_au_lait'],
    ['Foo--Bar__Baz', 'foo_bar_baz'],
    ['parseTenantId', 'parsetenantid'],
    ['  __init__  ', 'init'],
    ['Ωμέγα', ''],
    ['!!!', ''],
    ['', ''],
    ['naïve résumé', 'naive_resume'],
  ])('%j → %j', (name, id) => {
    expect(normalizeNodeId(name)).toBe(id);
  });

  it('keeps very long names whole', () => {
    expect(normalizeNodeId(`${'a'.repeat(5000)}!`)).toBe('a'.repeat(5000));
  });
});

describe('pythonFloat', () => {
  it.each([
    [0, '0.0'],
    [14, '14.0'],
    [14.5, '14.5'],
    [0.1, '0.1'],
    [1e-5, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [0.0001, '0.0001'],
    [123456789012345.6, '123456789012345.6'],
    [1e16, '1e+16'],
    [2.5e20, '2.5e+20'],
    [-3, '-3.0'],
    [-0.00002, '-2e-05'],
  ])('%d is written %s', (value, text) => {
    expect(pythonFloat(value)).toBe(text);
  });
});

describe('edgeId', () => {
  it('matches the check values of the specification', () => {
    expect(edgeId('a', 'calls', 'b', 'seg', 0, 0)).toBe('c5058f65bac70281');
    expect(edgeId('woman_in_lab_coat', 'same_as', 'marie_curie', 'frame_14_0', 14, 14)).toBe(
      '4e8964983adbfd30',
    );
  });

  it('differs when any part differs', () => {
    const base = edgeId('a', 'calls', 'b', 'seg', 0, 0);
    expect(edgeId('a', 'calls', 'b', 'seg', 0, 0.5)).not.toBe(base);
    expect(edgeId('b', 'calls', 'a', 'seg', 0, 0)).not.toBe(base);
  });
});
