/**
 * A photo's text for image search: the bytes are checked to be an image Tesseract reads (PNG, JPEG, BMP,
 * WebP; by their signature, whatever `media_mime` says), then read by the media package's OCR
 * (tesseract.js). `@tessera/media` is loaded at run time by a specifier the bundler cannot follow, as the
 * ingestion does: a function bundle without it answers that OCR is not installed there.
 */
import type * as Media from '@tessera/media';
import { sniffMediaType } from '@tessera/media/sniff';

export interface OcrReader {
  readonly name: string;
  /** The text of an image's bytes (kept words, a line a line). */
  read(image: Buffer): Promise<string>;
}

/** The formats a photo may have: what Tesseract decodes. */
export const OCR_FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'webp', 'bmp']);

/** The image format of `bytes` when it is one OCR reads, else undefined. */
export function imageFormat(bytes: Uint8Array): string | undefined {
  if (bytes.length >= 2 && bytes[0] === 0x42 && bytes[1] === 0x4d) return 'bmp';
  const sniffed = sniffMediaType(bytes.subarray(0, 64));
  return sniffed && OCR_FORMATS.has(sniffed.format) ? sniffed.format : undefined;
}

const MEDIA_PACKAGE = '@tessera/media';

/** The media package's tesseract.js OCR, its worker started on the first photo. */
export function mediaOcr(): OcrReader {
  let engine: Promise<Media.OcrEngine> | undefined;
  return {
    name: 'embedded:tesseract.js',
    async read(image) {
      engine ??= (import(/* @vite-ignore */ MEDIA_PACKAGE) as Promise<typeof Media>).then(
        (media) => new media.TesseractOcr(),
        (error: unknown) => {
          engine = undefined;
          throw new Error(
            `OCR (@tessera/media) is not installed in this process: ${(error as Error).message}`,
          );
        },
      );
      return (await (await engine).recognize(image)).text;
    },
  };
}
