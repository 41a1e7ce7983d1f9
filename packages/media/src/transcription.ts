/**
 * Speech to text through an OpenAI-compatible `/v1/audio/transcriptions` endpoint (document 3): the audio in
 * 30-second chunks, each sent as `verbose_json` for its timings; a chunk whose segments stop before its speech
 * ends is asked again as plain `json` and the missing tail added; an empty, looping or malformed answer is asked
 * again once. A chunk still unusable after that fails its file with `TranscriptionChunkError`.
 */
import { toFile } from 'openai';
import { z } from 'zod';
import { chunkBounds, readPcm, wavFile } from './audio';
import { InferenceCallError, TranscriptionChunkError } from './errors';
import type { Ffmpeg } from './ffmpeg';
import { callFailure, type EndpointOptions, openAIClient, shorten } from './openai-client';
import type { SpeechSpan, TranscriptSegment } from './types';

export const CHUNK_SECONDS = 30;
/** Segments ending this close to where speech ends reach the end of their chunk. */
export const COVERAGE_TOLERANCE_S = 1.5;

export interface TimedText {
  start: number;
  end: number;
  text: string;
}

export interface TranscriptionAnswer {
  text: string;
  /** `verbose_json` only: the segments with times relative to the chunk. */
  segments?: TimedText[];
}

/** The port: one transcription request for one WAV chunk. */
export interface TranscriptionClient {
  readonly name: string;
  transcribe(wav: Buffer, format: 'verbose_json' | 'json', filename: string): Promise<TranscriptionAnswer>;
}

const answerSchema = z.object({
  text: z.string(),
  segments: z
    .array(z.object({ start: z.number().finite(), end: z.number().finite(), text: z.string() }))
    .optional(),
});

/** A transcription answer that broke the contract (no `text`, segments of the wrong shape). */
export class TranscriptionAnswerError extends Error {}

export class OpenAITranscriptionClient implements TranscriptionClient {
  readonly name: string;
  private readonly client;

  constructor(private readonly options: EndpointOptions & { language?: string }) {
    this.name = `transcription:${options.model}`;
    this.client = openAIClient(options);
  }

  async transcribe(
    wav: Buffer,
    format: 'verbose_json' | 'json',
    filename: string,
  ): Promise<TranscriptionAnswer> {
    let answer: unknown;
    try {
      answer = await this.client.audio.transcriptions.create({
        file: await toFile(wav, filename, { type: 'audio/wav' }),
        model: this.options.model,
        response_format: format,
        temperature: 0,
        ...(this.options.language ? { language: this.options.language } : {}),
      });
    } catch (error) {
      throw new InferenceCallError(
        'transcription',
        this.options.baseURL,
        callFailure(error, this.options),
        error,
      );
    }
    const parsed = answerSchema.safeParse(answer);
    if (!parsed.success) {
      throw new TranscriptionAnswerError(
        `answered out of contract (${parsed.error.issues[0]?.path.join('.') || 'body'}: ${parsed.error.issues[0]?.message}): ${shorten(JSON.stringify(answer) ?? String(answer))}`,
      );
    }
    return format === 'json' ? { text: parsed.data.text } : parsed.data;
  }
}

const WORD = /[\p{L}\p{N}']+/gu;
const words = (text: string) => (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/'/g, ''));

/**
 * True when the text is a decoder loop: one n-gram (n ≤ 8) repeated back to back at least 4 times (6 for a
 * single word) over at least half of the words, or at least 10 times anywhere.
 */
export function isLooping(text: string): boolean {
  const w = words(text);
  for (let n = 1; n <= 8; n++) {
    for (let i = 0; i + 2 * n <= w.length; i++) {
      let repeats = 1;
      while (i + (repeats + 1) * n <= w.length && sameGram(w, i, i + repeats * n, n)) repeats++;
      if (repeats >= 10) return true;
      if (repeats >= (n === 1 ? 6 : 4) && repeats * n * 2 >= w.length) return true;
      if (repeats > 1) i += (repeats - 1) * n;
    }
  }
  return false;
}

function sameGram(w: string[], a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (w[a + k] !== w[b + k]) return false;
  return true;
}

/** Why an answer cannot be used as it is, or undefined when it can. */
export function unusable(answer: TranscriptionAnswer): string | undefined {
  if (answer.text.trim() === '' && !(answer.segments ?? []).some((s) => s.text.trim())) return 'empty answer';
  if (isLooping(answer.text)) return `looping answer: ${shorten(answer.text.trim(), 80)}`;
  return undefined;
}

/**
 * `segments` with the words of the plain-JSON `text` that come after them added as one segment from where the
 * segments stop to `end`. When the segments' words cannot be found at the start of the text, and the text has
 * more words, the text replaces them as one segment: its content matters more than the lost timings.
 */
export function addMissingTail(segments: TimedText[], text: string, end: number): TimedText[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const normalized = tokens.map((t) => words(t).join(''));
  const have = segments.flatMap((s) => words(s.text));
  const lastEnd = segments.reduce((max, s) => Math.max(max, s.end), 0);
  // Position in `tokens` right after the segments' words, skipping tokens that hold no word.
  let matched = 0;
  let position = 0;
  while (position < tokens.length && matched < have.length) {
    if (normalized[position] === '') {
      position++;
      continue;
    }
    if (normalized[position] !== have.slice(matched, matched + words(tokens[position]!).length).join(''))
      break;
    matched += words(tokens[position]!).length;
    position++;
  }
  const jsonWords = normalized.filter(Boolean).length;
  if (matched < have.length) {
    return jsonWords > have.length
      ? [{ start: segments[0]?.start ?? 0, end, text: tokens.join(' ') }]
      : segments;
  }
  const tail = tokens.slice(position).join(' ');
  if (!words(tail).length) return segments;
  return [...segments, { start: lastEnd, end: Math.max(end, lastEnd), text: tail }];
}

export interface Chunk {
  index: number;
  /** Seconds in the file. */
  start: number;
  end: number;
  wav: Buffer;
  /**
   * Where speech ends in the chunk (seconds from its start) when a speech detector ran; 0 when it found none.
   * Undefined: unknown, so the chunk's end.
   */
  speechEnd?: number;
}

/** The chunk's segments (times relative to the chunk) and the requests it took. */
export async function transcribeChunk(
  client: TranscriptionClient,
  chunk: Chunk,
): Promise<{ segments: TimedText[]; requests: number }> {
  let requests = 0;
  const length = chunk.end - chunk.start;
  const filename = `chunk_${chunk.index}.wav`;
  const fail = (reason: string, cause?: unknown): never => {
    throw new TranscriptionChunkError(chunk.index, chunk.start, chunk.end, requests, reason, cause);
  };
  /** One request, then one more when the answer is empty, looping or malformed; the usable answer or a reason. */
  const ask = async (format: 'verbose_json' | 'json') => {
    let reason = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      requests++;
      let answer: TranscriptionAnswer;
      try {
        answer = await client.transcribe(chunk.wav, format, filename);
      } catch (error) {
        if (error instanceof TranscriptionAnswerError) {
          reason = error.message;
          continue;
        }
        return fail((error as Error).message, error);
      }
      reason = unusable(answer) ?? '';
      if (!reason) return { answer };
    }
    return { reason };
  };

  const verbose = await ask('verbose_json');
  if (!verbose.answer) {
    // Silence transcribes to nothing: an empty answer is only a failure where speech was detected.
    if (verbose.reason === 'empty answer' && (chunk.speechEnd === undefined || chunk.speechEnd === 0)) {
      return { segments: [], requests };
    }
    return fail(verbose.reason);
  }
  let segments = (verbose.answer.segments ?? [])
    .filter((s) => s.text.trim())
    .map((s) => ({
      start: clamp(s.start, length),
      end: clamp(Math.max(s.end, s.start), length),
      text: s.text.trim(),
    }));
  const lastEnd = segments.reduce((max, s) => Math.max(max, s.end), 0);
  const speechEnd = Math.min(chunk.speechEnd ?? length, length);
  if (segments.length === 0 || lastEnd < speechEnd - COVERAGE_TOLERANCE_S) {
    const plain = await ask('json');
    if (plain.answer) segments = addMissingTail(segments, plain.answer.text.trim(), speechEnd);
    else if (segments.length === 0) {
      // verbose_json gave text but no segments, and plain JSON gave nothing usable: the text spans the chunk.
      segments = [{ start: 0, end: speechEnd || length, text: verbose.answer.text.trim() }];
    }
  }
  return { segments, requests };
}

const clamp = (value: number, max: number) => Math.min(Math.max(value, 0), max);

export interface TranscribeOptions {
  client: TranscriptionClient;
  /** Seconds of audio in the file. */
  duration: number;
  chunkSeconds?: number;
  /** The file's speech spans, when a detector ran: chunks without speech are not sent. */
  speech?: SpeechSpan[];
  signal?: AbortSignal;
}

/** Where speech ends inside [start, end), relative to start; 0 when none is there. */
export function speechEndIn(spans: SpeechSpan[], start: number, end: number): number {
  let last = 0;
  for (const span of spans) {
    if (span.end > start && span.start < end) last = Math.max(last, Math.min(span.end, end) - start);
  }
  return last;
}

/** The file's transcript: chunk by chunk (one chunk's audio in memory at a time), `transcript_<i>` in order. */
export async function transcribeFile(
  ffmpeg: Ffmpeg,
  file: string,
  options: TranscribeOptions,
): Promise<TranscriptSegment[]> {
  const transcript: TranscriptSegment[] = [];
  for (const [index, bounds] of chunkBounds(
    options.duration,
    options.chunkSeconds ?? CHUNK_SECONDS,
  ).entries()) {
    options.signal?.throwIfAborted();
    const speechEnd = options.speech ? speechEndIn(options.speech, bounds.start, bounds.end) : undefined;
    if (speechEnd === 0) continue;
    const pcm = await readPcm(ffmpeg, file, {
      start: bounds.start,
      seconds: bounds.end - bounds.start,
      signal: options.signal,
    });
    const { segments } = await transcribeChunk(options.client, {
      index,
      ...bounds,
      wav: wavFile(pcm),
      speechEnd,
    });
    for (const segment of segments) {
      const i = transcript.length;
      transcript.push({
        segment_id: `transcript_${i}`,
        index: i,
        text: segment.text,
        ts_start: round3(bounds.start + segment.start),
        ts_end: round3(bounds.start + segment.end),
      });
    }
  }
  return transcript;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
