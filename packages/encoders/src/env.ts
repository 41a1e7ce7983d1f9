/** Settings of the encoders, parsed once at load so a bad value fails at start. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';
import { EmbeddedEncoderName } from './types';

const schema = z.object({
  /** Late-interaction sidecar speaking `POST /pooling`; unset → the embedded hashed-token encoder. */
  TESSERA_POOLING_URL: z.url().optional(),
  TESSERA_POOLING_MODEL: z.string().min(1).default('lightonai/GTE-ModernColBERT-v1'),
  /** The built-in multi-vector encoder used without a pooling URL. */
  TESSERA_EMBEDDED_ENCODER: EmbeddedEncoderName.default('glove-lexical-128'),
  /** The packed word vectors of `glove-lexical-128` (default: the file shipped in this package's data/). */
  TESSERA_WORD_VECTORS: z.string().min(1).optional(),
  /** OpenAI-compatible server speaking `POST /v1/embeddings`; unset → the embedded bag-of-words encoder. */
  TESSERA_EMBEDDINGS_URL: z.url().optional(),
  TESSERA_EMBEDDINGS_MODEL: z.string().min(1).default('nomic-ai/nomic-embed-text-v1.5'),
  TESSERA_EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  /** Dimension the dense server must answer with. */
  TESSERA_EMBEDDINGS_DIM: z.coerce.number().int().positive().default(768),
  /** Per-attempt timeout of a model-server request. */
  TESSERA_ENCODER_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Retries after a network error, a timeout or a 5xx answer (backoff 100 ms, 200 ms, 400 ms, ...). */
  TESSERA_ENCODER_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
});

// An empty variable counts as unset, so `TESSERA_POOLING_URL=` selects the embedded encoder.
export const encodersEnv = parseEnv('encoder', schema);
