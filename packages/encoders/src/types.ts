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
  encode(texts: string[], mode: EncodeMode): Promise<MultiVector[]>;
}

export interface DenseEncoder {
  readonly name: string;
  readonly dim: number;
  /** One unit-length vector per text. */
  embed(texts: string[], mode: EncodeMode): Promise<Float32Array[]>;
}

/** How a profile (or the environment) points an encoder at a model server. */
export const encoderConfigSchema = z.object({
  url: z.url().optional(),
  model: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().optional(),
  retries: z.number().int().min(0).max(10).optional(),
  apiKey: z.string().min(1).optional(),
  /** Expected dimension of a dense model server's vectors (default 768); answers of another size are rejected. */
  dim: z.number().int().positive().optional(),
});
export type EncoderConfig = z.infer<typeof encoderConfigSchema>;
