/** Ingestion jobs: what a job holds, what its files produced, and the answer an upload waits for. */
import { z } from 'zod';

export const JobState = z.enum(['queued', 'running', 'complete', 'failed', 'cancelled']);
export type JobState = z.infer<typeof JobState>;

export const TERMINAL_STATES: readonly JobState[] = ['complete', 'failed', 'cancelled'];

export interface JobFile {
  /** The file's name as uploaded (a relative path for `tessera index`); it is the source's `source_doc_id`. */
  name: string;
  /** Object key in the uploads bucket. */
  key: string;
  /** Where the file starts in that object, when the object holds several files (an upload's bundle). */
  offset?: number;
  size: number;
  /** Content profile the file is indexed with. */
  profile: string;
}

export type FileStatus = 'indexed' | 'skipped' | 'failed';

export interface FileResult {
  source_doc_id: string;
  profile: string;
  status: FileStatus;
  chunks_created: number;
  documents_fed: number;
  graph_nodes: number;
  graph_edges: number;
  error?: string;
  error_type?: string;
  /** Why the server-side graph pass produced nothing for this file, when it failed or was skipped. */
  extraction?: string;
}

/** The upload response of document 3, plus the per-file detail of a job of several files. */
export interface UploadResult {
  status: 'complete' | 'failed' | 'cancelled';
  job_id: string;
  video_id: string;
  chunks_created: number;
  documents_fed: number;
  graph_nodes: number;
  graph_edges: number;
  processing_time: number;
  files_skipped: number;
  files_failed: number;
  files: FileResult[];
  /** Whether claims (graph edges from text) were extracted, or why not. */
  claims: string;
  error?: string;
  error_type?: string;
  reason?: string;
}

export interface JobRecord {
  job_id: string;
  tenant_id: string;
  state: JobState;
  files: JobFile[];
  origin: 'upload' | 'presigned' | 'start';
  created_at: number;
  updated_at: number;
  /** Times a worker took the job up (SQS deliveries that reached it). */
  deliveries: number;
  result?: UploadResult;
  error?: string;
  error_type?: string;
  reason?: string;
}

/** The queue message of a job (S3 object-created notifications are the other kind the worker reads). */
export const JobMessage = z.object({ job_id: z.string().min(1) });
export type JobMessage = z.infer<typeof JobMessage>;
