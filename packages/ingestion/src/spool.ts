/**
 * A media file copied from the blob store to local disk in ranged reads of 8 MiB, hashed on the way: ffmpeg
 * seeks in files (an MP4's index may sit at its end), and a long video never sits whole in memory. The
 * directory is removed whatever happens.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JobFile } from './model';
import type { BlobStore } from './ports';

/** Bytes one ranged read of the blob store fetches. */
export const SPOOL_CHUNK_BYTES = 8 * 1024 * 1024;

export interface SpooledFile {
  /** The local copy, named `input<extension>`. */
  path: string;
  /** SHA-256 of the content, hex. */
  hash: string;
}

export async function withSpooledBlob<T>(
  blobs: BlobStore,
  file: JobFile,
  work: (spooled: SpooledFile) => Promise<T>,
  options: { dir?: string; chunkBytes?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const dir = await mkdtemp(path.join(options.dir ?? tmpdir(), 'tessera-spool-'));
  try {
    const extension = path
      .extname(file.name)
      .toLowerCase()
      .replace(/[^.a-z0-9]/g, '');
    const target = path.join(dir, `input${extension}`);
    const hash = createHash('sha256');
    const chunk = options.chunkBytes ?? SPOOL_CHUNK_BYTES;
    const base = file.offset ?? 0;
    const handle = await open(target, 'w');
    try {
      for (let at = 0; at < file.size; at += chunk) {
        options.signal?.throwIfAborted();
        const end = Math.min(at + chunk, file.size);
        const bytes = await blobs.get(file.key, { start: base + at, end: base + end });
        if (bytes.byteLength !== end - at) {
          throw new Error(
            `${blobs.describe(file.key)} answered ${bytes.byteLength} bytes for ${file.name}'s range ${at}–${end}; it holds less than the job says (${file.size} bytes)`,
          );
        }
        hash.update(bytes);
        await handle.write(bytes);
      }
    } finally {
      await handle.close();
    }
    return await work({ path: target, hash: hash.digest('hex') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
