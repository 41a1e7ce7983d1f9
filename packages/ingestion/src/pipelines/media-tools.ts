/**
 * The media tools (`@tessera/media`: ffmpeg, tesseract.js, Silero VAD, the inference adapters) are loaded at
 * run time, by a specifier the bundler cannot follow: the ingestion Lambda's bundle must not carry them (a
 * static ffmpeg, WebAssembly OCR and a native ONNX runtime do not fit a function bundle), so there media
 * jobs go to the media worker, which has them installed. The local runtime and the media worker load them.
 */
import type * as Media from '@tessera/media';

export type MediaTools = typeof Media;

const MEDIA_PACKAGE = '@tessera/media';

let loaded: Promise<MediaTools> | undefined;

/** `@tessera/media`, imported once per process; rejects where it is not installed. */
export function loadMediaTools(): Promise<MediaTools> {
  const specifier = MEDIA_PACKAGE;
  loaded ??= (import(/* @vite-ignore */ specifier) as Promise<MediaTools>).catch((error: unknown) => {
    loaded = undefined;
    throw new MediaToolsMissingError((error as Error).message);
  });
  return loaded;
}

/** This process has no media tools (a function bundle without them). */
export class MediaToolsMissingError extends Error {
  constructor(detail: string) {
    super(`the media tools (@tessera/media) are not installed in this process: ${detail}`);
    this.name = 'MediaToolsMissingError';
  }
}
