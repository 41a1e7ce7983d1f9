/** Typed errors of the media analysis: bad media (400-class, with the job's `error_type`) and failed model servers (502). */
import { BadGatewayError, HttpError } from '@tessera/core';

export type MediaErrorType = 'CorruptMedia' | 'ContentTypeMismatch';

/** Media the pipelines cannot take. `errorType` is the ingestion job's `error_type`; 400 when refused at submit. */
export class MediaContentError extends HttpError {
  readonly errorType: MediaErrorType;

  constructor(errorType: MediaErrorType, message: string) {
    super(400, message);
    this.errorType = errorType;
  }
}

/** The file cannot be decoded: truncated, damaged, or not media at all. */
export class CorruptMediaError extends MediaContentError {
  constructor(message: string, cause?: unknown) {
    super('CorruptMedia', message);
    if (cause !== undefined) this.cause = cause;
  }
}

/** The file's bytes are of another type than its extension says (a PNG named `.mp4`). */
export class ContentTypeMismatchError extends MediaContentError {
  readonly detected: string;

  constructor(message: string, detected: string) {
    super('ContentTypeMismatch', message);
    this.detected = detected;
  }
}

export type InferenceService = 'transcription' | 'captioning';

/** A transcription or captioning endpoint failed a request: refused, timed out, errored or answered out of contract. */
export class InferenceCallError extends BadGatewayError {
  readonly service: InferenceService;
  readonly url: string;

  constructor(service: InferenceService, url: string, problem: string, cause?: unknown) {
    super(`${service === 'transcription' ? 'Transcription' : 'Captioning'} endpoint at ${url} ${problem}`);
    this.service = service;
    this.url = url;
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * A 30-second chunk whose transcription stayed unusable after its attempts (document 3): it fails its file.
 * Ingestion reports it as `ContentProcessingError` in a run and `IngestPipelineError` for a queue-driven job.
 */
export class TranscriptionChunkError extends BadGatewayError {
  readonly chunk: number;
  readonly start: number;
  readonly end: number;
  readonly attempts: number;
  readonly reason: string;

  constructor(chunk: number, start: number, end: number, attempts: number, reason: string, cause?: unknown) {
    super(
      `Transcription chunk ${chunk} (${start.toFixed(1)}–${end.toFixed(1)} s) is unusable after ${attempts} ${
        attempts === 1 ? 'attempt' : 'attempts'
      }: ${reason}`,
    );
    this.chunk = chunk;
    this.start = start;
    this.end = end;
    this.attempts = attempts;
    this.reason = reason;
    if (cause !== undefined) this.cause = cause;
  }
}

/** An embedding sidecar that did not report ready (`GET /health` → `{status: 'ready'}`) within its wait. */
export class SidecarNotReadyError extends BadGatewayError {
  readonly url: string;

  constructor(url: string, waitedMs: number, last: string) {
    super(`Embedding sidecar at ${url} was not ready after ${Math.round(waitedMs)} ms: ${last}`);
    this.url = url;
  }
}

/** ffmpeg (or the speech detector, or OCR) could not run at all: a fault of this installation, not of the file. */
export class MediaToolError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message);
    this.name = 'MediaToolError';
    if (cause !== undefined) this.cause = cause;
  }
}
