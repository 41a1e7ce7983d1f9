export { normalizeRows, packSignBits, unpackSignBits } from './binary';
export { encodersEnv } from './env';
export type { EncoderService } from './errors';
export {
  EncoderMismatchError,
  EncoderRequestError,
  EncoderResponseError,
  EncoderUnavailableError,
} from './errors';
export { createDenseEncoder, createEmbeddedEncoder, createMultiVectorEncoder } from './factory';
export type { GloveLexicalEncoderOptions } from './glove-lexical';
export {
  defaultWordVectorsPath,
  GloveLexicalEncoder,
  projectionMatrix,
  WORD_VECTORS_FILE,
} from './glove-lexical';
export type { HashedDenseEncoderOptions } from './hashed-dense';
export { HashedDenseEncoder } from './hashed-dense';
export type { HashedTokenEncoderOptions } from './hashed-token';
export { HashedTokenEncoder } from './hashed-token';
export type { PostJsonOptions } from './http';
export { postJson } from './http';
export type { OpenAIEmbeddingsEncoderOptions } from './openai-embeddings';
export { OpenAIEmbeddingsEncoder } from './openai-embeddings';
export type { PoolingEncoderOptions } from './pooling';
export { PoolingEncoder } from './pooling';
export { distinctTokens, STOP_WORDS, tokenize } from './tokenize';
export type { DenseEncoder, EncodeMode, EncoderConfig, MultiVector, MultiVectorEncoder } from './types';
export { BINARY_BYTES, EmbeddedEncoderName, encoderConfigSchema, sameVectors, TOKEN_DIM } from './types';
export type { WordVectors, WordVectorsHeader } from './word-vectors';
export { loadWordVectors, packWordVectors, readWordVectors } from './word-vectors';
