/** Token vectors computed once and kept in slabs, with their packed sign bits beside them. */
import { packSignBits } from './binary';
import { BINARY_BYTES, TOKEN_DIM } from './types';

const SLAB_ROWS = 8192;
const SLAB_SHIFT = 13;

/**
 * A token's unit vector and its 16 sign-bit bytes, computed by `compute` on first sight. When `capacity`
 * tokens are held the cache starts over (rows are reused), so memory stays bounded on any vocabulary.
 */
export class TokenVectorCache {
  private readonly rows = new Map<string, number>();
  private readonly vectorSlabs: Float32Array[] = [];
  private readonly binarySlabs: Uint8Array[] = [];

  constructor(
    private readonly compute: (token: string, out: Float32Array) => void,
    private readonly capacity: number,
  ) {}

  /** Copies the token's vector, times `scale`, into row `t` of `vectors`, and its bits into row `t` of `binary`. */
  copyInto(token: string, vectors: Float32Array, binary: Uint8Array, t: number, scale = 1): void {
    const row = this.row(token);
    const offset = row & (SLAB_ROWS - 1);
    const source = this.vectorSlabs[row >>> SLAB_SHIFT]!;
    const from = offset * TOKEN_DIM;
    const to = t * TOKEN_DIM;
    if (scale === 1) vectors.set(source.subarray(from, from + TOKEN_DIM), to);
    else for (let i = 0; i < TOKEN_DIM; i++) vectors[to + i] = source[from + i]! * scale;
    const bits = this.binarySlabs[row >>> SLAB_SHIFT]!;
    binary.set(bits.subarray(offset * BINARY_BYTES, (offset + 1) * BINARY_BYTES), t * BINARY_BYTES);
  }

  /** The token's unit vector (a copy). */
  vector(token: string): Float32Array {
    const row = this.row(token);
    const from = (row & (SLAB_ROWS - 1)) * TOKEN_DIM;
    return this.vectorSlabs[row >>> SLAB_SHIFT]!.slice(from, from + TOKEN_DIM);
  }

  private row(token: string): number {
    const cached = this.rows.get(token);
    if (cached !== undefined) return cached;
    if (this.rows.size >= this.capacity) this.rows.clear();
    const row = this.rows.size;
    const slab = row >>> SLAB_SHIFT;
    if (slab === this.vectorSlabs.length) {
      this.vectorSlabs.push(new Float32Array(SLAB_ROWS * TOKEN_DIM));
      this.binarySlabs.push(new Uint8Array(SLAB_ROWS * BINARY_BYTES));
    }
    const offset = row & (SLAB_ROWS - 1);
    const target = this.vectorSlabs[slab]!.subarray(offset * TOKEN_DIM, (offset + 1) * TOKEN_DIM);
    target.fill(0);
    this.compute(token, target);
    this.binarySlabs[slab]!.set(packSignBits(target), offset * BINARY_BYTES);
    this.rows.set(token, row);
    return row;
  }
}
