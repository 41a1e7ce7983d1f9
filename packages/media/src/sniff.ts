/** What a file's first bytes say it is, and whether that agrees with its extension. */
import { ContentTypeMismatchError } from './errors';

export type MediaKind = 'video' | 'audio' | 'image' | 'pdf';

/** A container or image format recognised by its signature. */
export interface SniffedType {
  /** Short name: `mp4`, `mov`, `m4a`, `webm/mkv`, `avi`, `wav`, `mp3`, `flac`, `ogg`, `png`, `jpeg`, `gif`, `webp`, `pdf`. */
  format: string;
  mime: string;
}

/** Bytes enough for every signature below. */
export const SNIFF_BYTES = 64;

const ascii = (head: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...head.subarray(at, at + length));

/** The format the signature at the start of `head` names, or undefined when none is recognised. */
export function sniffMediaType(head: Uint8Array): SniffedType | undefined {
  if (head.length >= 8 && ascii(head, 4, 4) === 'ftyp') {
    const brand = ascii(head, 8, 4);
    if (brand === 'qt  ') return { format: 'mov', mime: 'video/quicktime' };
    if (brand === 'M4A ' || brand === 'M4B ') return { format: 'm4a', mime: 'audio/mp4' };
    if (brand.startsWith('hei') || brand === 'mif1' || brand === 'avif') {
      return { format: 'heif', mime: 'image/heif' };
    }
    return { format: 'mp4', mime: 'video/mp4' };
  }
  // QuickTime files written before `ftyp` existed open with another atom.
  if (head.length >= 8 && ['moov', 'mdat', 'wide', 'free', 'skip'].includes(ascii(head, 4, 4))) {
    return { format: 'mov', mime: 'video/quicktime' };
  }
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) {
    return { format: 'webm/mkv', mime: 'video/x-matroska' };
  }
  if (ascii(head, 0, 4) === 'RIFF') {
    const form = ascii(head, 8, 4);
    if (form === 'AVI ') return { format: 'avi', mime: 'video/x-msvideo' };
    if (form === 'WAVE') return { format: 'wav', mime: 'audio/wav' };
    if (form === 'WEBP') return { format: 'webp', mime: 'image/webp' };
  }
  if (ascii(head, 0, 4) === 'fLaC') return { format: 'flac', mime: 'audio/flac' };
  if (ascii(head, 0, 4) === 'OggS') return { format: 'ogg', mime: 'audio/ogg' };
  if (ascii(head, 0, 3) === 'ID3') return { format: 'mp3', mime: 'audio/mpeg' };
  // An MPEG audio frame header: 11 sync bits, then a layer that is not "reserved".
  if (head[0] === 0xff && head[1] !== undefined && (head[1] & 0xe0) === 0xe0 && (head[1] & 0x06) !== 0) {
    return { format: 'mp3', mime: 'audio/mpeg' };
  }
  if (head[0] === 0x89 && ascii(head, 1, 3) === 'PNG') return { format: 'png', mime: 'image/png' };
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { format: 'jpeg', mime: 'image/jpeg' };
  if (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a') {
    return { format: 'gif', mime: 'image/gif' };
  }
  if (ascii(head, 0, 5) === '%PDF-') return { format: 'pdf', mime: 'application/pdf' };
  return undefined;
}

/** Formats each media extension may hold (MP4 and QuickTime are one family; so are WebM and Matroska). */
const ACCEPTED: Record<string, { kind: MediaKind; formats: string[] }> = {
  '.mp4': { kind: 'video', formats: ['mp4', 'mov', 'm4a'] },
  '.mov': { kind: 'video', formats: ['mov', 'mp4'] },
  '.m4v': { kind: 'video', formats: ['mp4', 'mov'] },
  '.mkv': { kind: 'video', formats: ['webm/mkv'] },
  '.webm': { kind: 'video', formats: ['webm/mkv'] },
  '.avi': { kind: 'video', formats: ['avi'] },
  '.wav': { kind: 'audio', formats: ['wav'] },
  '.mp3': { kind: 'audio', formats: ['mp3'] },
  '.m4a': { kind: 'audio', formats: ['m4a', 'mp4'] },
  '.flac': { kind: 'audio', formats: ['flac'] },
  '.png': { kind: 'image', formats: ['png'] },
  '.jpg': { kind: 'image', formats: ['jpeg'] },
  '.jpeg': { kind: 'image', formats: ['jpeg'] },
  '.gif': { kind: 'image', formats: ['gif'] },
  '.webp': { kind: 'image', formats: ['webp'] },
  '.pdf': { kind: 'pdf', formats: ['pdf'] },
};

/** The media kind an extension (lower-case, with its dot) stands for, or undefined for other files. */
export function mediaKindOf(extension: string): MediaKind | undefined {
  return ACCEPTED[extension.toLowerCase()]?.kind;
}

/**
 * Throws `ContentTypeMismatchError` when `head` is recognisably another format than `extension` allows.
 * Unrecognised bytes pass: the decoder then tells whether they are damaged media (`CorruptMedia`).
 * Answers the recognised format, if any.
 */
export function checkMediaType(name: string, extension: string, head: Uint8Array): SniffedType | undefined {
  const accepted = ACCEPTED[extension.toLowerCase()];
  const sniffed = sniffMediaType(head);
  if (!accepted || !sniffed) return sniffed;
  if (!accepted.formats.includes(sniffed.format)) {
    throw new ContentTypeMismatchError(
      `${name} holds ${sniffed.format.toUpperCase()} data (${sniffed.mime}), not what its extension ${extension} says`,
      sniffed.format,
    );
  }
  return sniffed;
}
