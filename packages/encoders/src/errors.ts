/**
 * Errors of the model-server adapters (all 502, each naming the service and URL that failed), and the refusal
 * to mix vectors of two encoders in one table.
 */
import { BadGatewayError, ConflictError } from '@tessera/core';

/** The model servers behind the adapters: text encoders here, the media embedding sidecars in @tessera/media. */
export type EncoderService = 'pooling' | 'embeddings' | 'visual_pooling' | 'video_embed' | 'audio_embed';

/** The model server did not answer usefully: refused, timed out or kept answering 5xx through every retry. */
export class EncoderUnavailableError extends BadGatewayError {
  readonly service: EncoderService;
  readonly url: string;
  readonly attempts: number;

  constructor(service: EncoderService, url: string, reason: string, attempts: number, cause?: unknown) {
    super(
      `Embedding service '${service}' at ${url} ${reason} (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'})`,
    );
    this.service = service;
    this.url = url;
    this.attempts = attempts;
    if (cause !== undefined) this.cause = cause;
  }
}

/** The model server refused the request (4xx); retrying the same request would not help. */
export class EncoderRequestError extends BadGatewayError {
  readonly service: EncoderService;
  readonly url: string;
  readonly upstreamStatus: number;

  constructor(service: EncoderService, url: string, upstreamStatus: number, message: string) {
    super(`Embedding service '${service}' at ${url} rejected the request with ${upstreamStatus}: ${message}`);
    this.service = service;
    this.url = url;
    this.upstreamStatus = upstreamStatus;
  }
}

/** The model server answered 2xx with something that is not the contract's shape (wrong dimension, counts). */
export class EncoderResponseError extends BadGatewayError {
  readonly service: EncoderService;
  readonly url: string;

  constructor(service: EncoderService, url: string, problem: string) {
    super(`Embedding service '${service}' at ${url} answered out of contract: ${problem}`);
    this.service = service;
    this.url = url;
  }
}

/**
 * A table's vectors were made by another encoder than the one configured for it: scores between the two
 * would compare unrelated spaces. 409: re-index the table with the configured encoder, or configure the
 * recorded one again.
 */
export class EncoderMismatchError extends ConflictError {
  readonly table: string;
  readonly recorded: string;
  readonly configured: string;

  constructor(table: string, recorded: string, configured: string) {
    super(
      `Table ${table} holds vectors of encoder ${recorded}, not of the configured ${configured}: re-index it, or configure ${recorded} again`,
    );
    this.table = table;
    this.recorded = recorded;
    this.configured = configured;
  }
}
