/**
 * The concurrent writer of `npm run bench -- search`: another process uploading 200 chunks of code every
 * interval into the bench's table until it is stopped; prints how many uploads it made and how long they took.
 * Arguments: the database directory, the table, the interval in milliseconds.
 */
import path from 'node:path';
import { createMultiVectorEncoder } from '@tessera/encoders';
import { LanceContentIndex, lanceConnection } from '@tessera/search';
import { chunkRows, codeChunks, templateOf } from './search.bench';

const [dir, schema, interval] = process.argv.slice(2) as [string, string, string];
const template = templateOf();
const index = new LanceContentIndex(lanceConnection(dir));
const encoder = createMultiVectorEncoder();
const source = path.resolve(import.meta.dirname, '../node_modules/@aws-sdk');
let chunks = codeChunks(source);
const times: number[] = [];
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});
let uploads = 0;
while (!stopping) {
  const started = performance.now();
  const batch: { file: string; text: string }[] = [];
  for (let pass = 0; batch.length < 200 && pass < 2; pass++) {
    for (const chunk of chunks) {
      batch.push(chunk);
      if (batch.length === 200) break;
    }
    // Read through: start over (the ids differ by upload, so these are new documents).
    if (batch.length < 200) chunks = codeChunks(source);
  }
  const { rows, sources } = await chunkRows(encoder, batch, uploads * 200, 'w');
  await index.replaceSources(schema, template, sources, rows);
  await index.maintain(schema);
  uploads++;
  times.push(performance.now() - started);
  console.log(`upload ${uploads} ${(performance.now() - started).toFixed(0)} ms`);
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, Number(interval) - (performance.now() - started))),
  );
}
times.sort((a, b) => a - b);
console.log(
  `${uploads} uploads of 200 chunks while the queries ran, each ${times[Math.floor(times.length / 2)]?.toFixed(0) ?? '-'} ms (median) to encode and commit`,
);
process.exit(0);
