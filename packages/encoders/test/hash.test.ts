import { describe, expect, it } from 'vitest';
import { fnv1a64, gaussianVector } from '../src/hash';

const hex = ([hi, lo]: [number, number]) =>
  hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');

describe('fnv1a64', () => {
  it('matches the published FNV-1a 64 test vectors', () => {
    expect(hex(fnv1a64(''))).toBe('cbf29ce484222325');
    expect(hex(fnv1a64('a'))).toBe('af63dc4c8601ec8c');
    expect(hex(fnv1a64('foobar'))).toBe('85944171f73967e8');
  });

  it('agrees with a BigInt reference on multi-byte text', () => {
    const reference = (text: string) => {
      let hash = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(text)) {
        hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      }
      return hash.toString(16).padStart(16, '0');
    };
    for (const text of ['café', 'parseTenantId', '日本語', '\u0001abc', 'x'.repeat(500)]) {
      expect(hex(fnv1a64(text))).toBe(reference(text));
    }
  });
});

describe('gaussianVector', () => {
  it('is deterministic per key and differs between keys', () => {
    const a = gaussianVector('tenant', new Float32Array(128));
    expect(gaussianVector('tenant', new Float32Array(128))).toEqual(a);
    expect(gaussianVector('tenants', new Float32Array(128))).not.toEqual(a);
  });

  it('draws values with mean near 0 and variance near 1', () => {
    const values = gaussianVector('statistics', new Float32Array(20_000));
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / values.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(variance).toBeGreaterThan(0.9);
    expect(variance).toBeLessThan(1.1);
  });
});
