import { describe, expect, it } from 'vitest';
import { BINARY_BYTES, packSignBits, TOKEN_DIM, unpackSignBits } from '../src/index';

describe('packSignBits', () => {
  it('packs sign bits MSB-first, bit set only for values > 0', () => {
    // dims 0..7: + - + + 0 - - +  → 1011 0001; dims 8..15: all negative but dim 15 → 0000 0001
    const row = Float32Array.from([0.5, -1, 2, 0.1, 0, -0.3, -0.2, 7, -1, -1, -1, -1, -1, -1, -1, 0.4]);
    expect([...packSignBits(row, 16)]).toEqual([0b10110001, 0b00000001]);
  });

  it('packs a 128-dim row into 16 bytes and several rows one after another', () => {
    const rows = new Float32Array(2 * TOKEN_DIM).fill(-1);
    rows[0] = 1; // row 0, byte 0, bit 7
    rows[9] = 1; // row 0, byte 1, bit 6
    rows[127] = 1; // row 0, byte 15, bit 0
    rows[TOKEN_DIM + 3] = 1; // row 1, byte 0, bit 4
    const bits = packSignBits(rows);
    expect(bits).toHaveLength(2 * BINARY_BYTES);
    expect(bits[0]).toBe(0x80);
    expect(bits[1]).toBe(0x40);
    expect(bits[15]).toBe(0x01);
    expect(bits[16]).toBe(0x10);
    expect(bits.reduce((sum, byte) => sum + byte, 0)).toBe(0x80 + 0x40 + 0x01 + 0x10);
  });

  it('rejects a dim that is not a multiple of 8 and a length that is not a multiple of dim', () => {
    expect(() => packSignBits(new Float32Array(12), 12)).toThrow(RangeError);
    expect(() => packSignBits(new Float32Array(130))).toThrow(/not a multiple of dim 128/);
  });
});

describe('unpackSignBits', () => {
  it('turns each bit back into +1 or -1', () => {
    const row = Float32Array.from({ length: TOKEN_DIM }, (_, i) => (i % 3 === 0 ? 0.2 : -0.2));
    const signs = unpackSignBits(packSignBits(row));
    expect([...signs]).toEqual([...row].map((value) => (value > 0 ? 1 : -1)));
  });
});
