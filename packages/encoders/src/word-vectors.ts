/**
 * Packed word vectors: a vocabulary in frequency order with one int8 row per word, read in a few
 * milliseconds (one file read, one string split, no parsing of numbers), so a cold Lambda pays little for it.
 *
 * Layout, little-endian: the 8 bytes `TWVEC\0\0\x01`; a u32 length and that many bytes of a JSON header
 * (`{words, dim, source, ...}`, free-form beyond those two); a u32 length and the words as UTF-8 joined by
 * `\n`, in row order; zero padding to a multiple of 4; `words` f32 row scales; `words × dim` int8 values.
 * Row i is `scale[i] * int8[i]`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const MAGIC = Buffer.from('TWVEC\0\0\x01', 'latin1');

export interface WordVectorsHeader {
  words: number;
  dim: number;
  /** Where the vectors come from, and how they were processed; for people, not read by code. */
  source?: string;
  [key: string]: unknown;
}

export interface WordVectors {
  header: WordVectorsHeader;
  /** Word → row. Rows are in the source's frequency order: a lower row is a more frequent word. */
  rows: Map<string, number>;
  scales: Float32Array;
  values: Int8Array;
  dim: number;
  /** SHA-256 of the file, hex: which vectors an encoder built on it makes. */
  sha256: string;
}

/** Packs rows of floats (`words.length × dim`, row-major), each quantized to int8 with its own scale. */
export function packWordVectors(
  words: readonly string[],
  vectors: Float32Array,
  dim: number,
  header: Omit<WordVectorsHeader, 'words' | 'dim'> = {},
): Buffer {
  if (vectors.length !== words.length * dim) {
    throw new RangeError(`${vectors.length} values are not ${words.length} words × ${dim}`);
  }
  if (words.some((word) => word.length === 0 || word.includes('\n'))) {
    throw new RangeError('words must be non-empty and hold no newline');
  }
  const headerBytes = Buffer.from(JSON.stringify({ ...header, words: words.length, dim }), 'utf8');
  const vocab = Buffer.from(words.join('\n'), 'utf8');
  const vocabEnd = MAGIC.length + 4 + headerBytes.length + 4 + vocab.length;
  const padding = (4 - (vocabEnd % 4)) % 4;
  const out = Buffer.alloc(vocabEnd + padding + words.length * 4 + words.length * dim);
  let at = MAGIC.copy(out, 0);
  at = out.writeUInt32LE(headerBytes.length, at);
  at += headerBytes.copy(out, at);
  at = out.writeUInt32LE(vocab.length, at);
  at += vocab.copy(out, at) + padding;
  const valuesAt = at + words.length * 4;
  for (let row = 0; row < words.length; row++) {
    let max = 0;
    for (let i = row * dim; i < (row + 1) * dim; i++) max = Math.max(max, Math.abs(vectors[i]!));
    const scale = max / 127;
    out.writeFloatLE(scale, at + row * 4);
    for (let i = 0; i < dim; i++) {
      const value = scale === 0 ? 0 : Math.round(vectors[row * dim + i]! / scale);
      out.writeInt8(Math.max(-127, Math.min(127, value)), valuesAt + row * dim + i);
    }
  }
  return out;
}

/** Reads a packed file (see the module comment); throws naming the file when it is not one. */
export function readWordVectors(bytes: Buffer, file = 'word vectors'): WordVectors {
  const fail = (why: string) => new Error(`${file} is not a packed word-vectors file: ${why}`);
  if (bytes.length < MAGIC.length + 8 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw fail('wrong magic bytes');
  }
  let at = MAGIC.length;
  const headerLength = bytes.readUInt32LE(at);
  at += 4;
  const header = JSON.parse(bytes.toString('utf8', at, at + headerLength)) as WordVectorsHeader;
  at += headerLength;
  const { words, dim } = header;
  if (!Number.isInteger(words) || !Number.isInteger(dim) || words < 0 || dim < 1) {
    throw fail('header lacks words and dim');
  }
  const vocabLength = bytes.readUInt32LE(at);
  at += 4;
  const list = words === 0 ? [] : bytes.toString('utf8', at, at + vocabLength).split('\n');
  at += vocabLength;
  at += (4 - (at % 4)) % 4;
  if (list.length !== words || bytes.length !== at + words * 4 + words * dim) {
    throw fail(`expected ${words} words of ${dim} values, the file's sizes disagree`);
  }
  // Copies: a Buffer from readFileSync may sit at any offset of a shared pool.
  const scales = new Float32Array(words);
  for (let row = 0; row < words; row++) scales[row] = bytes.readFloatLE(at + row * 4);
  const values = new Int8Array(
    bytes.buffer.slice(bytes.byteOffset + at + words * 4, bytes.byteOffset + bytes.length),
  );
  const rows = new Map<string, number>();
  for (let row = 0; row < words; row++) if (!rows.has(list[row]!)) rows.set(list[row]!, row);
  return {
    header,
    rows,
    scales,
    values,
    dim,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

export function loadWordVectors(file: string): WordVectors {
  return readWordVectors(readFileSync(file), file);
}
