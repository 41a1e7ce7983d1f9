/** Temporary files of one analysis: made under the system's temp directory and removed whatever happens. */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Runs `work` with a fresh directory and removes the directory afterwards. */
export async function withTempDir<T>(work: (dir: string) => Promise<T>, parent = tmpdir()): Promise<T> {
  const dir = await mkdtemp(path.join(parent, 'tessera-media-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type ByteSource = Uint8Array | Readable | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/**
 * Writes `source` (an S3 body stream, an upload's bytes) to a temporary file named `input<extension>`, runs
 * `work` on its path and removes it: ffmpeg seeks in files (an MP4's index may sit at its end), so media is
 * spooled to disk rather than held in memory.
 */
export async function withSpooledFile<T>(
  source: ByteSource,
  extension: string,
  work: (file: string) => Promise<T>,
  parent?: string,
): Promise<T> {
  return withTempDir(async (dir) => {
    const file = path.join(dir, `input${extension.replace(/[^.a-z0-9]/gi, '')}`);
    const readable =
      source instanceof Uint8Array
        ? Readable.from([source])
        : source instanceof Readable
          ? source
          : Symbol.asyncIterator in source
            ? Readable.from(source as AsyncIterable<Uint8Array>)
            : Readable.fromWeb(source as import('node:stream/web').ReadableStream<Uint8Array>);
    await pipeline(readable, createWriteStream(file));
    return work(file);
  }, parent);
}
