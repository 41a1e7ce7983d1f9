/** The encoder ports: what search and ingestion code against, whatever model answers behind them. */
import { z } from 'zod';

/** Floats per token vector of the multi-vector (late-interaction) encoder. */
export const TOKEN_DIM = 128;
/** Bytes of one packed sign-bit row: TOKEN_DIM / 8. */
export const BINARY_BYTES = 16;

export type EncodeMode = 'query' | 'document';

export interface MultiVector {
  /** Number of token vectors (0 for a text without tokens: callers must handle it). */
  tokens: number;
  /** tokens × TOKEN_DIM floats, row-major, each row of unit L2 length. */
  vectors: Float32Array;
  /** tokens × BINARY_BYTES: sign bits of each row (set when value > 0), packed MSB-first. */
  binary: Uint8Array;
}

export interface MultiVectorEncoder {
  /** Names the model honestly, e.g. 'embedded:hashed-token-128' or 'pooling:<model>'. */
  readonly name: string;
  /**
   * Identifies the vectors this encoder makes: equal fingerprints give the same vectors for the same text,
   * different ones give vectors that must not be compared. `<name>@<version or digest>`; record it with a
   * table's vectors and compare it before writing to or querying that table (`sameVectors`).
   */
  readonly fingerprint: string;
  encode(texts: string[], mode: EncodeMode): Promise<MultiVector[]>;
}

export interface DenseEncoder {
  readonly name: string;
  readonly dim: number;
  /** One unit-length vector per text. */
  embed(texts: string[], mode: EncodeMode): Promise<Float32Array[]>;
}

/** The built-in multi-vector encoders, selectable without a model server. */
export const EmbeddedEncoderName = z.enum(['glove-lexical-128', 'hashed-token-128']);
export type EmbeddedEncoderName = z.infer<typeof EmbeddedEncoderName>;

/** How a profile (or the environment) points an encoder at a model server. */
export const encoderConfigSchema = z.object({
  /** The built-in multi-vector encoder used when no URL is set (default: `TESSERA_EMBEDDED_ENCODER`). */
  embedded: EmbeddedEncoderName.optional(),
  url: z.url().optional(),
  model: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().optional(),
  retries: z.number().int().min(0).max(10).optional(),
  apiKey: z.string().min(1).optional(),
  /** Expected dimension of a dense model server's vectors (default 768); answers of another size are rejected. */
  dim: z.number().int().positive().optional(),
});
export type EncoderConfig = z.infer<typeof encoderConfigSchema>;

/**
 * Whether vectors recorded with `recorded` (the fingerprint stored with a table; undefined when the table
 * has none yet) can be compared with the encoder's: equal fingerprints only.
 */
export function sameVectors(
  recorded: string | undefined,
  encoder: Pick<MultiVectorEncoder, 'fingerprint'>,
): boolean {
  return recorded === undefined || recorded === encoder.fingerprint;
}
