/**
 * A photo's text for image search: the bytes are checked to be an image Tesseract reads (PNG, JPEG, BMP,
 * WebP; by their signature, whatever `media_mime` says), then read by the media package's OCR
 * (tesseract.js). `@tessera/media` is loaded at run time by a specifier the bundler cannot follow, as the
 * ingestion does: a function bundle without it answers that OCR is not installed there.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** The photo could not be decoded as an image (the media package's `CorruptMedia`). */
export class UnreadablePhotoError extends Error {}

/**
 * The media package's image analysis, as ingestion reads an image: ffmpeg decodes the photo to one RGB PNG
 * (an undecodable one fails as corrupt before OCR sees it), then tesseract.js reads it.
 */
export function mediaOcr(): OcrReader {
  let media: Promise<typeof Media> | undefined;
  return {
    name: 'embedded:tesseract.js',
    async read(image) {
      media ??= (import(/* @vite-ignore */ MEDIA_PACKAGE) as Promise<typeof Media>).catch(
        (error: unknown) => {
          media = undefined;
          throw new Error(
            `OCR (@tessera/media) is not installed in this process: ${(error as Error).message}`,
          );
        },
      );
      const tools = await media;
      return tools.withTempDir(async (dir) => {
        const file = join(dir, 'photo');
        await writeFile(file, image);
        try {
          return (await tools.analyzeImage(file, { name: 'the photo' })).ocr_text;
        } catch (error) {
          if ((error as { errorType?: string }).errorType === 'CorruptMedia') {
            throw new UnreadablePhotoError((error as Error).message);
          }
          throw error;
        }
      });
    },
  };
}
