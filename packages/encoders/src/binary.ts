/** Packed sign bits: the 16-byte binary copy of each 128-float token vector used for hamming MaxSim. */
import { TOKEN_DIM } from './types';

/**
 * Packs the signs of `vectors` (rows of `dim` floats) into rows of dim / 8 bytes: bit set when the value
 * is > 0, MSB first, so byte j, bit (7 - k) holds dimension 8j + k.
 */
export function packSignBits(vectors: Float32Array, dim: number = TOKEN_DIM): Uint8Array {
  if (dim <= 0 || dim % 8 !== 0) throw new RangeError(`dim must be a positive multiple of 8 (got ${dim})`);
  if (vectors.length % dim !== 0) {
    throw new RangeError(`vectors hold ${vectors.length} floats, not a multiple of dim ${dim}`);
  }
  const out = new Uint8Array(vectors.length / 8);
  for (let byte = 0, i = 0; byte < out.length; byte++, i += 8) {
    out[byte] =
      ((vectors[i]! > 0 ? 1 : 0) << 7) |
      ((vectors[i + 1]! > 0 ? 1 : 0) << 6) |
      ((vectors[i + 2]! > 0 ? 1 : 0) << 5) |
      ((vectors[i + 3]! > 0 ? 1 : 0) << 4) |
      ((vectors[i + 4]! > 0 ? 1 : 0) << 3) |
      ((vectors[i + 5]! > 0 ? 1 : 0) << 2) |
      ((vectors[i + 6]! > 0 ? 1 : 0) << 1) |
      (vectors[i + 7]! > 0 ? 1 : 0);
  }
  return out;
}

/** The inverse view used by `float_binary` ranking: each bit as +1 (set) or -1 (clear). */
export function unpackSignBits(binary: Uint8Array, dim: number = TOKEN_DIM): Float32Array {
  if (dim <= 0 || dim % 8 !== 0) throw new RangeError(`dim must be a positive multiple of 8 (got ${dim})`);
  if (binary.length % (dim / 8) !== 0) {
    throw new RangeError(`binary holds ${binary.length} bytes, not a multiple of ${dim / 8}`);
  }
  const out = new Float32Array(binary.length * 8);
  for (let i = 0; i < out.length; i++) out[i] = (binary[i >> 3]! >> (7 - (i & 7))) & 1 ? 1 : -1;
  return out;
}

/** Scales each row of `vectors` to unit L2 length in place; an all-zero row stays zero. */
export function normalizeRows(vectors: Float32Array, dim: number): Float32Array {
  for (let start = 0; start < vectors.length; start += dim) {
    let sum = 0;
    for (let i = start; i < start + dim; i++) sum += vectors[i]! * vectors[i]!;
    if (sum === 0) continue;
    const scale = 1 / Math.sqrt(sum);
    for (let i = start; i < start + dim; i++) vectors[i] = vectors[i]! * scale;
  }
  return vectors;
}
