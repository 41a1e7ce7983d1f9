import { startServer } from '@tessera/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** The package as loaded under the given environment (env.ts parses process.env once, at load). */
async function loadWith(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const name of [
    'TESSERA_POOLING_URL',
    'TESSERA_POOLING_MODEL',
    'TESSERA_EMBEDDED_ENCODER',
    'TESSERA_WORD_VECTORS',
    'TESSERA_EMBEDDINGS_URL',
    'TESSERA_EMBEDDINGS_MODEL',
    'TESSERA_EMBEDDINGS_API_KEY',
    'TESSERA_EMBEDDINGS_DIM',
    'TESSERA_ENCODER_TIMEOUT_MS',
    'TESSERA_ENCODER_RETRIES',
  ]) {
    vi.stubEnv(name, env[name] ?? '');
  }
  return import('../src/index');
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('createMultiVectorEncoder', () => {
  it('uses the embedded GloVe + lexical encoder when no URL is configured', async () => {
    const { createMultiVectorEncoder, GloveLexicalEncoder } = await loadWith({});
    const encoder = createMultiVectorEncoder();
    expect(encoder).toBeInstanceOf(GloveLexicalEncoder);
    expect(encoder.name).toBe('embedded:glove-lexical-128');
    expect(encoder.fingerprint).toMatch(/^embedded:glove-lexical-128@1;[0-9a-f]{16};/);
  });

  it('keeps the hashed-token encoder selectable, by the environment or a config', async () => {
    const { createMultiVectorEncoder, HashedTokenEncoder } = await loadWith({
      TESSERA_EMBEDDED_ENCODER: 'hashed-token-128',
    });
    const fromEnv = createMultiVectorEncoder();
    expect(fromEnv).toBeInstanceOf(HashedTokenEncoder);
    expect([fromEnv.name, fromEnv.fingerprint]).toEqual([
      'embedded:hashed-token-128',
      'embedded:hashed-token-128@1',
    ]);
    const {
      createMultiVectorEncoder: create,
      GloveLexicalEncoder,
      HashedTokenEncoder: Hashed,
    } = await loadWith({});
    expect(create({ embedded: 'hashed-token-128' })).toBeInstanceOf(Hashed);
    expect(create({ embedded: 'glove-lexical-128' })).toBeInstanceOf(GloveLexicalEncoder);
    await expect(loadWith({ TESSERA_EMBEDDED_ENCODER: 'word2vec' })).rejects.toThrow(
      /TESSERA_EMBEDDED_ENCODER/,
    );
  });

  it('reads the word vectors from TESSERA_WORD_VECTORS when set', async () => {
    const { createMultiVectorEncoder } = await loadWith({ TESSERA_WORD_VECTORS: '/nonexistent/words.i8' });
    await expect(createMultiVectorEncoder().encode(['wing'], 'document')).rejects.toThrow(
      /nonexistent\/words\.i8/,
    );
  });

  it('uses the pooling adapter for a configured URL, with the default model', async () => {
    const { createMultiVectorEncoder, PoolingEncoder } = await loadWith({});
    const encoder = createMultiVectorEncoder({ url: 'http://colbert.internal:8000' });
    expect(encoder).toBeInstanceOf(PoolingEncoder);
    expect((encoder as InstanceType<typeof PoolingEncoder>).url).toBe('http://colbert.internal:8000/pooling');
    expect(encoder.name).toBe('pooling:lightonai/GTE-ModernColBERT-v1');
  });

  it('reads the environment, and a profile config wins over it', async () => {
    const { createMultiVectorEncoder, PoolingEncoder } = await loadWith({
      TESSERA_POOLING_URL: 'http://env-colbert:8000',
      TESSERA_POOLING_MODEL: 'env-model',
    });
    const fromEnv = createMultiVectorEncoder() as InstanceType<typeof PoolingEncoder>;
    expect([fromEnv.url, fromEnv.name]).toEqual(['http://env-colbert:8000/pooling', 'pooling:env-model']);
    const fromProfile = createMultiVectorEncoder({ url: 'http://profile:9000', model: 'profile-model' });
    expect((fromProfile as InstanceType<typeof PoolingEncoder>).url).toBe('http://profile:9000/pooling');
    expect(fromProfile.name).toBe('pooling:profile-model');
  });
});

describe('createDenseEncoder', () => {
  it('uses the embedded bag-of-words encoder when no URL is configured', async () => {
    const { createDenseEncoder, HashedDenseEncoder } = await loadWith({});
    const encoder = createDenseEncoder();
    expect(encoder).toBeInstanceOf(HashedDenseEncoder);
    expect([encoder.name, encoder.dim]).toEqual(['embedded:hashed-bow-768', 768]);
  });

  it('uses the OpenAI embeddings adapter for a configured URL', async () => {
    const { createDenseEncoder, OpenAIEmbeddingsEncoder } = await loadWith({});
    const encoder = createDenseEncoder({ url: 'http://embedder:8080', dim: 1024 });
    expect(encoder).toBeInstanceOf(OpenAIEmbeddingsEncoder);
    expect((encoder as InstanceType<typeof OpenAIEmbeddingsEncoder>).url).toBe(
      'http://embedder:8080/v1/embeddings',
    );
    expect([encoder.name, encoder.dim]).toEqual(['embeddings:nomic-ai/nomic-embed-text-v1.5', 1024]);
  });

  it('reads URL, model and dimension from the environment', async () => {
    const { createDenseEncoder, OpenAIEmbeddingsEncoder } = await loadWith({
      TESSERA_EMBEDDINGS_URL: 'https://api.example.com/v1',
      TESSERA_EMBEDDINGS_MODEL: 'text-embedding-3-small',
      TESSERA_EMBEDDINGS_DIM: '1536',
    });
    const encoder = createDenseEncoder() as InstanceType<typeof OpenAIEmbeddingsEncoder>;
    expect([encoder.url, encoder.name, encoder.dim]).toEqual([
      'https://api.example.com/v1/embeddings',
      'embeddings:text-embedding-3-small',
      1536,
    ]);
  });
});

describe('createDenseEncoder (integration: local HTTP server)', () => {
  it("sends the environment's API key to the environment's server only, never to a profile's URL", async () => {
    const server = await startServer((request) => ({
      status: 200,
      json: {
        data: (request.body as { input: string[] }).input.map((_, index) => ({ index, embedding: [1, 0] })),
      },
    }));
    try {
      const { createDenseEncoder } = await loadWith({
        TESSERA_EMBEDDINGS_URL: server.url,
        TESSERA_EMBEDDINGS_API_KEY: 'sk-env',
        TESSERA_EMBEDDINGS_DIM: '2',
      });
      await createDenseEncoder().embed(['x'], 'query');
      await createDenseEncoder({ url: `${server.url}/v1`, dim: 2 }).embed(['x'], 'query');
      await createDenseEncoder({ url: `${server.url}/v1`, dim: 2, apiKey: 'sk-profile' }).embed(
        ['x'],
        'query',
      );
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer sk-env',
        undefined,
        'Bearer sk-profile',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('encodersEnv', () => {
  it('applies the documented defaults', async () => {
    const { encodersEnv } = await loadWith({});
    expect(encodersEnv).toEqual({
      poolingModel: 'lightonai/GTE-ModernColBERT-v1',
      embeddedEncoder: 'glove-lexical-128',
      embeddingsModel: 'nomic-ai/nomic-embed-text-v1.5',
      embeddingsDim: 768,
      encoderTimeoutMs: 30_000,
      encoderRetries: 2,
    });
  });

  it('fails at load with a clear message for a bad setting', async () => {
    await expect(loadWith({ TESSERA_ENCODER_RETRIES: 'many' })).rejects.toThrow(
      /Invalid encoder settings: TESSERA_ENCODER_RETRIES/,
    );
    await expect(loadWith({ TESSERA_POOLING_URL: 'not a url' })).rejects.toThrow(/TESSERA_POOLING_URL/);
  });
});

describe('sameVectors / EncoderMismatchError', () => {
  it('accepts a table with no fingerprint yet or the same one, refuses another with a 409 naming both', async () => {
    const { createEmbeddedEncoder, EncoderMismatchError, sameVectors } = await loadWith({});
    const glove = createEmbeddedEncoder('glove-lexical-128');
    const hashed = createEmbeddedEncoder('hashed-token-128');
    expect(sameVectors(undefined, glove)).toBe(true);
    expect(sameVectors(glove.fingerprint, createEmbeddedEncoder('glove-lexical-128'))).toBe(true);
    expect(sameVectors(hashed.fingerprint, glove)).toBe(false);
    const error = new EncoderMismatchError('document_text_acme_prod', hashed.fingerprint, glove.fingerprint);
    expect(error.status).toBe(409);
    expect(error.message).toContain('embedded:hashed-token-128@1');
    expect(error.message).toContain(glove.fingerprint);
  });
});
