import {
  CompromiseEntityExtractor,
  createClaimExtractor,
  createEntityExtractor,
  GlinerEntityExtractor,
  llmEndpointOptions,
  OpenAIClaimExtractor,
  OpenAIEntityExtractor,
  parseExtractorsEnv,
} from '@tessera/extractors';
import { describe, expect, it } from 'vitest';

describe('parseExtractorsEnv', () => {
  it('defaults to the embedded extractor, no LLM, and the LLM endpoint record defaults', () => {
    const env = parseExtractorsEnv({});
    expect(env).toMatchObject({
      entityExtractor: 'embedded',
      glinerThreshold: 0.5,
      glinerTimeoutMs: 30_000,
      llmTemperature: 0.1,
      llmMaxTokens: 1000,
      llmRequestTimeout: 120,
      llmNumRetries: 1,
    });
    expect(env.llmBaseUrl).toBeUndefined();
  });

  it('reads overrides and counts empty variables as unset', () => {
    const env = parseExtractorsEnv({
      TESSERA_LLM_BASE_URL: 'http://llm:8000/v1',
      TESSERA_LLM_MODEL: 'qwen2.5-7b-instruct',
      TESSERA_LLM_TEMPERATURE: '0',
      TESSERA_LLM_MAX_TOKENS: '2048',
      TESSERA_LLM_REQUEST_TIMEOUT: '30.5',
      TESSERA_LLM_NUM_RETRIES: '3',
      TESSERA_LLM_SEED: '42',
      TESSERA_LLM_API_KEY: '',
      TESSERA_GLINER_URL: '',
    });
    expect(llmEndpointOptions(env)).toEqual({
      baseURL: 'http://llm:8000/v1',
      model: 'qwen2.5-7b-instruct',
      apiKey: undefined,
      temperature: 0,
      maxTokens: 2048,
      requestTimeout: 30.5,
      numRetries: 3,
      seed: 42,
    });
    expect(env.glinerUrl).toBeUndefined();
  });

  it('fails with a clear message on a missing companion setting or a bad value', () => {
    expect(() => parseExtractorsEnv({ TESSERA_ENTITY_EXTRACTOR: 'gliner' })).toThrow(
      'Invalid extractor settings: TESSERA_GLINER_URL: required when TESSERA_ENTITY_EXTRACTOR is gliner',
    );
    expect(() => parseExtractorsEnv({ TESSERA_ENTITY_EXTRACTOR: 'llm' })).toThrow(
      'TESSERA_LLM_BASE_URL: required when TESSERA_ENTITY_EXTRACTOR is llm',
    );
    expect(() => parseExtractorsEnv({ TESSERA_LLM_BASE_URL: 'http://llm/v1' })).toThrow(
      'TESSERA_LLM_MODEL: required when TESSERA_LLM_BASE_URL is set',
    );
    expect(() => parseExtractorsEnv({ TESSERA_ENTITY_EXTRACTOR: 'spacy' })).toThrow(
      'TESSERA_ENTITY_EXTRACTOR',
    );
    expect(() => parseExtractorsEnv({ TESSERA_LLM_NUM_RETRIES: '0' })).toThrow('TESSERA_LLM_NUM_RETRIES');
    expect(() => parseExtractorsEnv({ TESSERA_GLINER_URL: 'not a url' })).toThrow('TESSERA_GLINER_URL');
  });
});

describe('createEntityExtractor and createClaimExtractor', () => {
  it('choose by TESSERA_ENTITY_EXTRACTOR', () => {
    expect(createEntityExtractor(parseExtractorsEnv({}))).toBeInstanceOf(CompromiseEntityExtractor);
    const gliner = createEntityExtractor(
      parseExtractorsEnv({ TESSERA_ENTITY_EXTRACTOR: 'gliner', TESSERA_GLINER_URL: 'http://gliner:8080' }),
    );
    expect(gliner).toBeInstanceOf(GlinerEntityExtractor);
    expect(gliner.name).toBe('gliner:http://gliner:8080');
    const llm = createEntityExtractor(
      parseExtractorsEnv({
        TESSERA_ENTITY_EXTRACTOR: 'llm',
        TESSERA_LLM_BASE_URL: 'http://llm:8000/v1',
        TESSERA_LLM_MODEL: 'm',
      }),
    );
    expect(llm).toBeInstanceOf(OpenAIEntityExtractor);
    expect(llm.name).toBe('llm:m');
  });

  it('give no claim extractor without an LLM endpoint, and one with', () => {
    expect(createClaimExtractor(parseExtractorsEnv({}))).toBeUndefined();
    const claims = createClaimExtractor(
      parseExtractorsEnv({ TESSERA_LLM_BASE_URL: 'http://llm:8000/v1', TESSERA_LLM_MODEL: 'm' }),
    );
    expect(claims).toBeInstanceOf(OpenAIClaimExtractor);
    expect(claims!.name).toBe('llm:m');
  });
});
