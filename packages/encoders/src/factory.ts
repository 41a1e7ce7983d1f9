/** Picks the encoder a profile or the environment asks for: a model server when a URL is set, else the embedded one. */
import { encodersEnv } from './env';
import { GloveLexicalEncoder } from './glove-lexical';
import { HashedDenseEncoder } from './hashed-dense';
import { HashedTokenEncoder } from './hashed-token';
import { OpenAIEmbeddingsEncoder } from './openai-embeddings';
import { PoolingEncoder } from './pooling';
import type { DenseEncoder, EmbeddedEncoderName, EncoderConfig, MultiVectorEncoder } from './types';

/**
 * `config` (from a profile) wins field by field over the environment, so a profile that only sets a
 * timeout still uses the deployment's server. No URL in either → the embedded encoder.
 */
export function createMultiVectorEncoder(config: EncoderConfig = {}): MultiVectorEncoder {
  const url = config.url ?? encodersEnv.poolingUrl;
  if (!url) return createEmbeddedEncoder(config.embedded ?? encodersEnv.embeddedEncoder);
  return new PoolingEncoder({
    url,
    model: config.model ?? encodersEnv.poolingModel,
    timeoutMs: config.timeoutMs ?? encodersEnv.encoderTimeoutMs,
    retries: config.retries ?? encodersEnv.encoderRetries,
  });
}

export function createDenseEncoder(config: EncoderConfig = {}): DenseEncoder {
  const url = config.url ?? encodersEnv.embeddingsUrl;
  if (!url) return new HashedDenseEncoder();
  return new OpenAIEmbeddingsEncoder({
    url,
    model: config.model ?? encodersEnv.embeddingsModel,
    // The deployment's key only goes to the deployment's server, never to a URL a profile chose.
    apiKey: config.url ? config.apiKey : (config.apiKey ?? encodersEnv.embeddingsApiKey),
    dim: config.dim ?? encodersEnv.embeddingsDim,
    timeoutMs: config.timeoutMs ?? encodersEnv.encoderTimeoutMs,
    retries: config.retries ?? encodersEnv.encoderRetries,
  });
}

/** A built-in multi-vector encoder by name. */
export function createEmbeddedEncoder(name: EmbeddedEncoderName): MultiVectorEncoder {
  switch (name) {
    case 'hashed-token-128':
      return new HashedTokenEncoder();
    case 'glove-lexical-128':
      return new GloveLexicalEncoder(encodersEnv.wordVectors ? { wordVectors: encodersEnv.wordVectors } : {});
  }
}
