/** Audio as the speech models want it: 16 kHz mono PCM, streamed from ffmpeg or cut into chunks. */
import type { Ffmpeg } from './ffmpeg';

export const SPEECH_SAMPLE_RATE = 16_000;

export interface PcmOptions {
  /** Seconds into the file. */
  start?: number;
  /** Seconds to read. */
  seconds?: number;
  format: 's16le' | 'f32le';
  signal?: AbortSignal;
}

/** ffmpeg arguments decoding a file's first audio stream to raw mono PCM on stdout. */
export function pcmArgs(file: string, options: PcmOptions): string[] {
  return [
    '-v',
    'error',
    ...(options.start ? ['-ss', options.start.toFixed(3)] : []),
    ...(options.seconds !== undefined ? ['-t', options.seconds.toFixed(3)] : []),
    '-i',
    file,
    '-map',
    '0:a:0',
    '-vn',
    '-ac',
    '1',
    '-ar',
    String(SPEECH_SAMPLE_RATE),
    '-f',
    options.format,
    'pipe:1',
  ];
}

/** The file's audio as PCM buffers, as ffmpeg decodes it: memory stays at a pipe's worth whatever the length. */
export function pcmStream(ffmpeg: Ffmpeg, file: string, options: PcmOptions): AsyncIterable<Buffer> {
  return ffmpeg.stream(pcmArgs(file, options), { inputs: [file], signal: options.signal });
}

/** One stretch of audio (a transcription chunk) as 16-bit PCM. */
export async function readPcm(
  ffmpeg: Ffmpeg,
  file: string,
  options: Omit<PcmOptions, 'format'>,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of pcmStream(ffmpeg, file, { ...options, format: 's16le' })) parts.push(part);
  return Buffer.concat(parts);
}

/** A WAV file (RIFF, 16-bit PCM) around raw samples. */
export function wavFile(pcm: Buffer, sampleRate = SPEECH_SAMPLE_RATE, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** Seconds of audio a file decodes to, measured by decoding it (for containers that do not say). */
export async function measureAudioSeconds(
  ffmpeg: Ffmpeg,
  file: string,
  signal?: AbortSignal,
): Promise<number> {
  let bytes = 0;
  for await (const part of pcmStream(ffmpeg, file, { format: 's16le', signal })) bytes += part.length;
  return bytes / 2 / SPEECH_SAMPLE_RATE;
}

/** [start, end) of each chunk of `seconds` over `duration`; a tail shorter than 0.1 s is dropped. */
export function chunkBounds(duration: number, seconds: number): { start: number; end: number }[] {
  const bounds: { start: number; end: number }[] = [];
  for (let start = 0; start < duration - 0.1; start += seconds) {
    bounds.push({ start, end: Math.min(start + seconds, duration) });
  }
  return bounds;
}
