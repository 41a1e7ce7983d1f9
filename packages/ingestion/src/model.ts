/** Ingestion jobs: what a job holds, what its files produced, and the answer an upload waits for. */
import type { Ingestion } from '@tessera/api';
import { z } from 'zod';

export type JobState = Ingestion.JobState;

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

/** What a file of a job produced (its status, counts, and why it failed or yielded no graph). */
export type FileResult = Ingestion.FileResult;
/** The upload response of document 3, plus the per-file detail of a job of several files. */
export type UploadResult = Ingestion.UploadResult;

export interface JobRecord {
  job_id: string;
  tenant_id: string;
  /** Which creation of its tenant the job was submitted for (`incarnationOf`): one created again is another. */
  tenant_incarnation?: string;
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
