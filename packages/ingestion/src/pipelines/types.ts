import type { DocumentInput } from '@tessera/content';

/** A text source the server-side graph pass extracts from (a chunk of a document, a transcript segment…). */
export interface Segment {
  segment_id: string;
  text: string;
  ts_start: number;
  ts_end: number;
  modality: string;
}

export interface PipelineOutput {
  /** Content documents in chunk order; document `i` carries segment `i`'s back-references when it has one. */
  documents: DocumentInput[];
  segments: Segment[];
}

export interface PipelineInput {
  bytes: Uint8Array;
  /** The file's name, its `source_doc_id`. */
  name: string;
  /** Lower-case, with the dot. */
  extension: string;
}

export interface Pipeline {
  kind: 'document' | 'code' | 'video' | 'image' | 'audio';
  run(input: PipelineInput): Promise<PipelineOutput>;
}
