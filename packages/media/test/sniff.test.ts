import { describe, expect, it } from 'vitest';
import { ContentTypeMismatchError, checkMediaType, mediaKindOf, sniffMediaType } from '../src/index';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

const PNG = bytes([0x89], 'PNG\r\n\x1a\n', [0, 0, 0, 13], 'IHDR');
const MP4 = bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0]);
const MOV = bytes([0, 0, 0, 0x14], 'ftypqt  ');
const M4A = bytes([0, 0, 0, 0x20], 'ftypM4A ');
const WAV = bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ');
const AVI = bytes('RIFF', [0x24, 0, 0, 0], 'AVI LIST');
const WEBP = bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 ');
const MKV = bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]);
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0]);

describe('sniffMediaType', () => {
  it('recognises containers and images by their signatures', () => {
    expect(
      [PNG, MP4, MOV, M4A, WAV, AVI, WEBP, MKV, JPEG].map((head) => sniffMediaType(head)?.format),
    ).toEqual(['png', 'mp4', 'mov', 'm4a', 'wav', 'avi', 'webp', 'webm/mkv', 'jpeg']);
    expect(sniffMediaType(bytes('fLaC'))?.format).toBe('flac');
    expect(sniffMediaType(bytes('ID3', [4, 0]))?.format).toBe('mp3');
    expect(sniffMediaType(bytes([0xff, 0xfb, 0x90, 0x64]))?.format).toBe('mp3');
    expect(sniffMediaType(bytes('GIF89a'))?.format).toBe('gif');
    expect(sniffMediaType(bytes('%PDF-1.7'))?.format).toBe('pdf');
    expect(sniffMediaType(bytes([0, 0, 0, 8], 'moov'))?.format).toBe('mov');
  });

  it('answers undefined for bytes it does not know, and for too few bytes', () => {
    expect(sniffMediaType(bytes('hello world, plain text'))).toBeUndefined();
    expect(sniffMediaType(bytes([0xff]))).toBeUndefined();
    expect(sniffMediaType(new Uint8Array(0))).toBeUndefined();
  });
});

describe('checkMediaType', () => {
  it('refuses a PNG named .mp4 with ContentTypeMismatch naming what the bytes are', () => {
    let error: unknown;
    try {
      checkMediaType('clip.mp4', '.mp4', PNG);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ContentTypeMismatchError);
    expect(error).toMatchObject({
      errorType: 'ContentTypeMismatch',
      status: 400,
      detected: 'png',
      message: 'clip.mp4 holds PNG data (image/png), not what its extension .mp4 says',
    });
  });

  it('accepts the formats of one family under each other’s extensions', () => {
    expect(checkMediaType('a.mov', '.mov', MP4)?.format).toBe('mp4');
    expect(checkMediaType('a.mp4', '.MP4', MOV)?.format).toBe('mov');
    expect(checkMediaType('a.webm', '.webm', MKV)?.format).toBe('webm/mkv');
    expect(checkMediaType('a.m4a', '.m4a', MP4)?.format).toBe('mp4');
    expect(() => checkMediaType('a.wav', '.wav', AVI)).toThrow(ContentTypeMismatchError);
    expect(() => checkMediaType('a.jpg', '.jpg', PNG)).toThrow(ContentTypeMismatchError);
    expect(() => checkMediaType('a.mp3', '.mp3', WAV)).toThrow(/holds WAV data/);
  });

  it('lets unknown bytes through to the decoder, and ignores extensions that are not media', () => {
    expect(checkMediaType('a.mp4', '.mp4', bytes('not a video at all'))).toBeUndefined();
    expect(checkMediaType('notes.md', '.md', PNG)?.format).toBe('png');
  });

  it('maps extensions to media kinds', () => {
    expect(['.mp4', '.MKV', '.wav', '.flac', '.webp', '.pdf', '.md'].map(mediaKindOf)).toEqual([
      'video',
      'video',
      'audio',
      'audio',
      'image',
      'pdf',
      undefined,
    ]);
  });
});
