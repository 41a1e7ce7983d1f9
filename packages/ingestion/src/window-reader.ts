/** Reading the bytes of a window of a job's files from the blob store. */
import type { IngestionDeps } from './deps';
import type { JobFile } from './model';

/**
 * Reads the files of a window: files sharing an object (an upload's bundle) come from one ranged read of
 * the span they cover, read once; any other file is its own object.
 */
export function windowReader(deps: IngestionDeps, window: JobFile[]): (file: JobFile) => Promise<Uint8Array> {
  const spans = new Map<string, { from: number; to: number; bytes?: Promise<Uint8Array> }>();
  for (const file of window) {
    if (file.offset === undefined) continue;
    const span = spans.get(file.key) ?? { from: file.offset, to: file.offset };
    span.from = Math.min(span.from, file.offset);
    span.to = Math.max(span.to, file.offset + file.size);
    spans.set(file.key, span);
  }
  return async (file) => {
    const span = spans.get(file.key);
    if (!span || file.offset === undefined) return deps.blobs.get(file.key);
    span.bytes ??= deps.blobs.get(file.key, { start: span.from, end: span.to });
    const bytes = await span.bytes;
    return bytes.subarray(file.offset - span.from, file.offset - span.from + file.size);
  };
}
