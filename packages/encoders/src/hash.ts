/**
 * Deterministic pseudo-random vectors keyed by strings: a 64-bit FNV-1a hash of the UTF-8 bytes seeds an
 * sfc32 generator whose uniforms become Gaussians through Box–Muller. Same string, same vector, on every
 * machine and in every release (changing this file changes every stored embedded vector).
 */

const utf8 = new TextEncoder();
let scratch = new Uint8Array(256);

/** FNV-1a 64 of the UTF-8 bytes of `text`, as [high, low] 32-bit halves (exact, without BigInt). */
export function fnv1a64(text: string): [number, number] {
  if (text.length * 3 > scratch.length) scratch = new Uint8Array(text.length * 3);
  const { written } = utf8.encodeInto(text, scratch);
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < written; i++) {
    lo ^= scratch[i]!;
    // h * 0x100000001b3 mod 2^64 = h * 0x1b3 + (lo << 40); every partial product stays below 2^53.
    const low = (lo >>> 0) * 0x1b3;
    const carry = Math.floor(low / 0x100000000);
    hi = (hi * 0x1b3 + carry + ((lo << 8) >>> 0)) >>> 0;
    lo = low >>> 0;
  }
  return [hi >>> 0, lo >>> 0];
}

/** Fills `out` with standard-normal values drawn from a generator seeded by the hash of `key`. */
export function gaussianVector(key: string, out: Float32Array): Float32Array {
  const [hi, lo] = fnv1a64(key);
  // sfc32 with the 64-bit hash spread over its 128-bit state; a short warm-up mixes the seed.
  let a = hi | 0;
  let b = lo | 0;
  let c = (hi ^ 0x9e3779b9) | 0;
  let d = 1;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  for (let i = 0; i < out.length; i += 2) {
    const u = 1 - next(); // (0, 1]: log stays finite
    const radius = Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * next();
    out[i] = radius * Math.cos(angle);
    if (i + 1 < out.length) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}
