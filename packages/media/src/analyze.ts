/**
 * The media analyses the pipelines index: a video's keyframes (times, OCR text, caption) with its transcript
 * or speech spans, an audio file's transcript or speech spans, an image's OCR text and caption. Each names
 * the stages it skipped and why, and the models it used. Files are read by path, temporary files removed.
 */
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { measureAudioSeconds } from './audio';
import type { Captioner } from './caption';
import { CorruptMediaError, MediaToolError } from './errors';
import { defaultFfmpeg, type Ffmpeg, lastError, type MediaProbe, probeMedia } from './ffmpeg';
import { DEFAULT_SCENE_THRESHOLD, extractKeyframes, FrameExtraction } from './keyframes';
import { type OcrEngine, TesseractOcr } from './ocr';
import { CAPTIONING_NOT_CONFIGURED, TRANSCRIPTION_NOT_CONFIGURED } from './services';
import { checkMediaType, mediaKindOf, SNIFF_BYTES } from './sniff';
import { withTempDir } from './temp';
import { type TranscriptionClient, transcribeFile } from './transcription';
import type {
  AudioAnalysis,
  ImageAnalysis,
  Keyframe,
  MediaSegment,
  Skipped,
  SpeechSpan,
  TranscriptSegment,
  VideoAnalysis,
} from './types';
import { SileroSpeechDetector, type SpeechDetector } from './vad';

/** The embedded tools: a decoder, OCR and a speech detector, shared by every analysis of the process. */
export interface MediaToolkit {
  ffmpeg: Ffmpeg;
  ocr: OcrEngine;
  speech: SpeechDetector;
}

let shared: Promise<MediaToolkit> | undefined;

/** The process's embedded toolkit, made on first use (the OCR worker and the speech model load lazily). */
export function embeddedToolkit(): Promise<MediaToolkit> {
  shared ??= (async () => {
    const ffmpeg = await defaultFfmpeg();
    return { ffmpeg, ocr: new TesseractOcr(), speech: new SileroSpeechDetector(ffmpeg) };
  })();
  return shared;
}

export interface AnalyzeOptions {
  toolkit?: MediaToolkit;
  /** A configured transcription endpoint; without one the transcript is skipped. */
  transcriber?: TranscriptionClient;
  /** A configured captioning endpoint; without one captions are skipped. */
  captioner?: Captioner;
  /** The file's name for messages (default: the path's base name). */
  name?: string;
  signal?: AbortSignal;
  /** Parent of the analysis's temporary directory (default: the system's). */
  tempDir?: string;
}

export interface VideoOptions extends AnalyzeOptions {
  /** The profile's `pipeline_config.frame_extraction`. */
  frameExtraction?: Partial<FrameExtraction>;
  sceneThreshold?: number;
}

function modelsOf(toolkit: MediaToolkit, options: AnalyzeOptions, parts: ('ffmpeg' | 'ocr' | 'speech')[]) {
  const models: Record<string, string> = {};
  if (parts.includes('ffmpeg')) models.decoder = toolkit.ffmpeg.name;
  if (parts.includes('ocr')) models.ocr = toolkit.ocr.name;
  if (parts.includes('speech')) models.speech = toolkit.speech.name;
  if (options.transcriber && parts.includes('speech')) models.transcription = options.transcriber.name;
  if (options.captioner && parts.includes('ocr')) models.captioning = options.captioner.name;
  return models;
}

/** Speech spans, then the transcript when an endpoint is configured (silent chunks are not sent). */
async function audioTrack(
  toolkit: MediaToolkit,
  file: string,
  duration: number,
  options: AnalyzeOptions,
): Promise<{ speech_spans: SpeechSpan[]; transcript: TranscriptSegment[] }> {
  const speech_spans = await toolkit.speech.detect(file, { signal: options.signal });
  const transcript = options.transcriber
    ? await transcribeFile(toolkit.ffmpeg, file, {
        client: options.transcriber,
        duration,
        speech: speech_spans,
        signal: options.signal,
      })
    : [];
  return { speech_spans, transcript };
}

export async function analyzeVideo(file: string, options: VideoOptions = {}): Promise<VideoAnalysis> {
  const toolkit = options.toolkit ?? (await embeddedToolkit());
  const name = options.name ?? path.basename(file);
  const probe = await probeMedia(toolkit.ffmpeg, file, name);
  if (!probe.video) throw new CorruptMediaError(`${name} has no video stream`);
  const config = FrameExtraction.parse(options.frameExtraction ?? {});

  const visual = withTempDir(async (dir) => {
    const frames = await extractKeyframes(toolkit.ffmpeg, file, {
      dir,
      config,
      duration: probe.duration,
      sceneThreshold: options.sceneThreshold ?? DEFAULT_SCENE_THRESHOLD,
      name,
      signal: options.signal,
    });
    const keyframes: Keyframe[] = [];
    for (const frame of frames) {
      options.signal?.throwIfAborted();
      const png = await readFile(frame.file);
      const ocr = await toolkit.ocr.recognize(png);
      const caption = options.captioner ? await options.captioner.caption(png, 'image/png') : null;
      keyframes.push({
        frame_index: frame.frame_index,
        segment_id: `frame_${frame.frame_index}`,
        ts_start: frame.ts_start,
        ts_end: frame.ts_end,
        ocr_text: ocr.text,
        caption,
      });
    }
    return keyframes;
  }, options.tempDir);
  const duration = probe.duration ?? 0;
  const audible = probe.audio
    ? (async () =>
        audioTrack(toolkit, file, duration || (await measureAudioSeconds(toolkit.ffmpeg, file)), options))()
    : Promise.resolve(undefined);
  // Both branches settle before an error is thrown, so neither outlives the call nor leaves files behind.
  const [frames, sound] = await Promise.allSettled([visual, audible]);
  // Once the signal is aborted, whatever a branch failed with (a tool killed mid-frame, a torn pipe) is the
  // abort: the caller is told so, as the AbortError the signal carries.
  if (options.signal?.aborted && (frames.status === 'rejected' || sound.status === 'rejected')) {
    options.signal.throwIfAborted();
  }
  if (frames.status === 'rejected') throw frames.reason;
  if (sound.status === 'rejected') throw sound.reason;
  const keyframes = frames.value;
  const audio = sound.value;
  const skipped: Skipped = {};
  if (!probe.audio) skipped.transcription = 'the video has no audio track';
  else if (!options.transcriber) skipped.transcription = TRANSCRIPTION_NOT_CONFIGURED;
  if (!options.captioner) skipped.captioning = CAPTIONING_NOT_CONFIGURED;
  const lastFrame = keyframes.at(-1);
  return {
    kind: 'video',
    duration: duration || (lastFrame?.ts_end ?? 0),
    width: probe.video.width,
    height: probe.video.height,
    has_audio: Boolean(probe.audio),
    keyframes,
    transcript: audio?.transcript ?? [],
    speech_spans: audio?.speech_spans ?? [],
    skipped,
    models: modelsOf(toolkit, options, probe.audio ? ['ffmpeg', 'ocr', 'speech'] : ['ffmpeg', 'ocr']),
  };
}

export async function analyzeAudio(file: string, options: AnalyzeOptions = {}): Promise<AudioAnalysis> {
  const toolkit = options.toolkit ?? (await embeddedToolkit());
  const name = options.name ?? path.basename(file);
  const probe = await probeMedia(toolkit.ffmpeg, file, name);
  if (!probe.audio) throw new CorruptMediaError(`${name} has no audio stream`);
  const duration = probe.duration ?? (await measureAudioSeconds(toolkit.ffmpeg, file, options.signal));
  const { speech_spans, transcript } = await audioTrack(toolkit, file, duration, options);
  return {
    kind: 'audio',
    duration,
    transcript,
    speech_spans,
    skipped: options.transcriber ? {} : { transcription: TRANSCRIPTION_NOT_CONFIGURED },
    models: modelsOf(toolkit, { ...options, captioner: undefined }, ['ffmpeg', 'speech']),
  };
}

/** Longest side of the picture OCR and captioning get; larger images are scaled down. */
export const MAX_IMAGE_SIDE = 4096;

export async function analyzeImage(file: string, options: AnalyzeOptions = {}): Promise<ImageAnalysis> {
  const toolkit = options.toolkit ?? (await embeddedToolkit());
  const name = options.name ?? path.basename(file);
  const probe: MediaProbe = await probeMedia(toolkit.ffmpeg, file, name);
  if (!probe.video) throw new CorruptMediaError(`${name} has no picture`);
  const { width, height } = probe.video;
  return withTempDir(async (dir) => {
    // Every format (GIF's first frame, WebP, CMYK JPEG) becomes one RGB PNG that OCR and captioning both take.
    const png = path.join(dir, 'image.png');
    const { code, stderr } = await toolkit.ffmpeg.run(
      [
        '-v',
        'error',
        '-i',
        file,
        '-frames:v',
        '1',
        '-vf',
        `scale='min(${MAX_IMAGE_SIDE},iw)':'min(${MAX_IMAGE_SIDE},ih)':force_original_aspect_ratio=decrease,format=rgb24`,
        png,
      ],
      { inputs: [file], outputDir: dir, signal: options.signal },
    );
    const bytes = code === 0 ? await readFile(png).catch(() => undefined) : undefined;
    if (!bytes)
      throw new CorruptMediaError(`${name} cannot be decoded: ${lastError(stderr).replaceAll(file, name)}`);
    const ocr = await toolkit.ocr.recognize(bytes);
    const caption = options.captioner ? await options.captioner.caption(bytes, 'image/png') : null;
    return {
      kind: 'image',
      width,
      height,
      ocr_text: ocr.text,
      caption,
      skipped: options.captioner ? {} : { captioning: CAPTIONING_NOT_CONFIGURED },
      models: modelsOf(toolkit, { ...options, transcriber: undefined }, ['ffmpeg', 'ocr']),
    };
  }, options.tempDir);
}

/**
 * Checks the file's first bytes against its extension (`ContentTypeMismatchError`), then runs the analysis of
 * its kind. `extension` is lower-case with its dot.
 */
export async function analyzeMedia(
  file: string,
  extension: string,
  options: VideoOptions = {},
): Promise<VideoAnalysis | AudioAnalysis | ImageAnalysis> {
  const name = options.name ?? path.basename(file);
  const kind = mediaKindOf(extension);
  if (!kind || kind === 'pdf')
    throw new MediaToolError(`${extension} is not a video, audio or image extension`);
  const handle = await open(file, 'r');
  let head: Uint8Array;
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head.length === 0) throw new CorruptMediaError(`${name} is empty`);
  checkMediaType(name, extension, head);
  const named = { ...options, name };
  if (kind === 'video') return analyzeVideo(file, named);
  if (kind === 'audio') return analyzeAudio(file, named);
  return analyzeImage(file, named);
}

/**
 * The text sources of an analysis for the server-side graph pass (document 1, step 2): each transcript segment
 * with its times; each keyframe's caption as `frame_<idx>` and each OCR block as `frame_<idx>_ocr_<b>`, anchored
 * at the frame's time; an image's caption and OCR blocks. A silent video or an image without text gives none.
 */
export function mediaSegments(analysis: VideoAnalysis | AudioAnalysis | ImageAnalysis): MediaSegment[] {
  const segments: MediaSegment[] = [];
  const modality = analysis.kind;
  if (analysis.kind !== 'image') {
    for (const t of analysis.transcript) {
      if (t.text.trim()) {
        segments.push({
          segment_id: t.segment_id,
          text: t.text,
          ts_start: t.ts_start,
          ts_end: t.ts_end,
          modality,
          source: 'transcript',
        });
      }
    }
  }
  const blocks = (text: string) => text.split(/\n\s*\n/).filter((b) => b.trim());
  if (analysis.kind === 'video') {
    for (const frame of analysis.keyframes) {
      const at = { ts_start: frame.ts_start, ts_end: frame.ts_start, modality };
      if (frame.caption?.trim())
        segments.push({ segment_id: frame.segment_id, text: frame.caption, ...at, source: 'caption' });
      blocks(frame.ocr_text).forEach((text, b) => {
        segments.push({ segment_id: `${frame.segment_id}_ocr_${b}`, text, ...at, source: 'ocr' });
      });
    }
  }
  if (analysis.kind === 'image') {
    const at = { ts_start: 0, ts_end: 0, modality };
    if (analysis.caption?.trim())
      segments.push({ segment_id: 'caption', text: analysis.caption, ...at, source: 'caption' });
    blocks(analysis.ocr_text).forEach((text, b) => {
      segments.push({ segment_id: `ocr_${b}`, text, ...at, source: 'ocr' });
    });
  }
  return segments;
}
