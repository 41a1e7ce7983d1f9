/** Failures of the document extractors: all 502, each naming the extractor, the source document and the segment. */
import { BadGatewayError } from '@tessera/core';
import type { ExtractionContext } from './types';

abstract class ExtractionError extends BadGatewayError {
  readonly extractor: string;
  readonly sourceDocId: string;
  readonly segmentId: string;
  /** What went wrong, without the document context. */
  readonly reason: string;

  constructor(what: string, extractor: string, context: ExtractionContext, reason: string, cause?: unknown) {
    super(
      `${what} by ${extractor} failed for source_doc_id '${context.sourceDocId}', segment '${context.segmentId}': ${reason}`,
    );
    this.extractor = extractor;
    this.sourceDocId = context.sourceDocId;
    this.segmentId = context.segmentId;
    this.reason = reason;
    if (cause !== undefined) this.cause = cause;
  }
}

/** The entity model could not be loaded or failed on a chunk. */
export class EntityExtractionError extends ExtractionError {
  constructor(extractor: string, context: ExtractionContext, reason: string, cause?: unknown) {
    super('Entity extraction', extractor, context, reason, cause);
  }
}

/** The claim model failed on a text or answered out of contract. */
export class ClaimExtractionError extends ExtractionError {
  constructor(extractor: string, context: ExtractionContext, reason: string, cause?: unknown) {
    super('Claim extraction', extractor, context, reason, cause);
  }
}
