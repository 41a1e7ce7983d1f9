/** Why a file could not be ingested: a type the job reports as `error_type`, and a message for people. */
export class ContentError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
    this.name = errorType;
  }
}

/**
 * The file was sound but its processing failed (a transcription chunk unusable after its attempts, a model
 * server that failed): document 3 reports it as `IngestPipelineError` for a queue-driven job and as
 * `ContentProcessingError` in a start-run, whose other files go on.
 */
export class PipelineError extends ContentError {
  constructor(message: string, cause?: unknown) {
    super('IngestPipelineError', message);
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * The job must run in the media worker instead of here: this process has no media tools, or a file would
 * outlive the attempt's time. The attempt hands the job over whole; files it already indexed are skipped
 * there by their content hash.
 */
export class HandOffError extends Error {
  constructor(readonly reason: string) {
    super(`handed to the media worker: ${reason}`);
    this.name = 'HandOffError';
  }
}
