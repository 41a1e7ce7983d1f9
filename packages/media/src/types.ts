/** What the media analysis answers: the shapes the pipelines index and hand to the graph pass. */
import { z } from 'zod';

const seconds = z.number().finite().min(0);

/** Where someone speaks, in seconds from the file's start. */
export const SpeechSpan = z.object({ start: seconds, end: seconds });
export type SpeechSpan = z.infer<typeof SpeechSpan>;

/** One transcript segment: `segment_id` is `transcript_<index>`, times absolute in the file. */
export const TranscriptSegment = z.object({
  segment_id: z.string(),
  index: z.number().int().min(0),
  text: z.string(),
  ts_start: seconds,
  ts_end: seconds,
});
export type TranscriptSegment = z.infer<typeof TranscriptSegment>;

/** A recognised word and the engine's confidence (0–100). */
export const OcrWord = z.object({
  text: z.string(),
  confidence: z.number(),
  bbox: z.object({ x0: z.number(), y0: z.number(), x1: z.number(), y1: z.number() }),
});
export type OcrWord = z.infer<typeof OcrWord>;

/** One keyframe of a video: the frame document's fields. */
export const Keyframe = z.object({
  frame_index: z.number().int().min(0),
  segment_id: z.string(),
  ts_start: seconds,
  ts_end: seconds,
  ocr_text: z.string(),
  /** The vision model's description, or null when captioning is not configured. */
  caption: z.string().nullable(),
});
export type Keyframe = z.infer<typeof Keyframe>;

/** Why a stage did not run, for the upload's result: `{transcription: '<reason>', captioning: '<reason>'}`. */
export const Skipped = z.object({ transcription: z.string().optional(), captioning: z.string().optional() });
export type Skipped = z.infer<typeof Skipped>;

/** The models that produced an analysis, named honestly (`embedded:…` for what ships in this package). */
export const ModelNames = z.record(z.string(), z.string());

export const VideoAnalysis = z.object({
  kind: z.literal('video'),
  duration: seconds,
  width: z.number().int(),
  height: z.number().int(),
  has_audio: z.boolean(),
  keyframes: z.array(Keyframe),
  transcript: z.array(TranscriptSegment),
  speech_spans: z.array(SpeechSpan),
  skipped: Skipped,
  models: ModelNames,
});
export type VideoAnalysis = z.infer<typeof VideoAnalysis>;

export const AudioAnalysis = z.object({
  kind: z.literal('audio'),
  duration: seconds,
  transcript: z.array(TranscriptSegment),
  speech_spans: z.array(SpeechSpan),
  skipped: Skipped,
  models: ModelNames,
});
export type AudioAnalysis = z.infer<typeof AudioAnalysis>;

export const ImageAnalysis = z.object({
  kind: z.literal('image'),
  width: z.number().int(),
  height: z.number().int(),
  ocr_text: z.string(),
  caption: z.string().nullable(),
  skipped: Skipped,
  models: ModelNames,
});
export type ImageAnalysis = z.infer<typeof ImageAnalysis>;

/** A text source for the server-side graph pass (document 1 step 2), in the fields of extractors' DocumentSegment. */
export interface MediaSegment {
  segment_id: string;
  text: string;
  ts_start: number;
  ts_end: number;
  modality: 'video' | 'audio' | 'image';
  /** What the text is: the cross-modal linking tells spoken names from shown ones by it. */
  source: 'transcript' | 'caption' | 'ocr';
}
