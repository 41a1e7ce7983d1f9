import type { Ingestion } from '@tessera/api';
import type { DocumentInput } from '@tessera/content';
import type { Profile } from '@tessera/search';
import type { MediaTools } from './media-tools';

/** Where a segment's text came from: cross-modal linking tells what was said from what was shown by it. */
export type SegmentSource = 'text' | 'transcript' | 'caption' | 'ocr';

/** A text source the server-side graph pass extracts from (a chunk of a document, a transcript segment…). */
export interface Segment {
  segment_id: string;
  text: string;
  ts_start: number;
  ts_end: number;
  modality: string;
  /** Media segments say what they are; plain documents leave it out (`text`). */
  source?: SegmentSource;
}

/** What a file's result reports beside its counts: the stages skipped and why, speech spans, the analysis. */
export type MediaReport = Pick<Ingestion.FileResult, 'skipped' | 'speech_spans' | 'media'>;

export interface PipelineOutput {
  /** Content documents in chunk order. */
  documents: DocumentInput[];
  segments: Segment[];
  /**
   * The segments whose graph back-references each document carries, by segment id (a frame document carries
   * its frame's caption and OCR blocks and the transcript segments of its window). Absent: document `i`
   * carries segment `i`'s.
   */
  documentSegments?: string[][];
  report?: MediaReport;
}

/** What every pipeline is given about the file and the job. */
export interface PipelineContext {
  /** The file's name, its `source_doc_id`. */
  name: string;
  /** Lower-case, with the dot. */
  extension: string;
  profile: Profile;
  /** The media tools of this process (ffmpeg, OCR, speech detection), when it has them. */
  media?: () => Promise<MediaTools>;
  /**
   * Epoch milliseconds by which the attempt must have ended, when it has a limit and the job can be handed
   * to the media worker instead (a file that would not finish in time is handed over before it starts).
   */
  handOffBefore?: number;
  signal?: AbortSignal;
}

/** Pipelines that take the file's bytes: text, code and PDF, read whole (documents are small). */
export interface BytesPipeline {
  kind: 'document' | 'code';
  reads: 'bytes';
  run(input: PipelineContext & { bytes: Uint8Array }): Promise<PipelineOutput>;
}

/** Pipelines that take a local file: media, which ffmpeg seeks in, spooled from the blob store first. */
export interface FilePipeline {
  kind: 'video' | 'image' | 'audio';
  reads: 'file';
  run(input: PipelineContext & { file: string; size: number }): Promise<PipelineOutput>;
}

export type Pipeline = BytesPipeline | FilePipeline;
