/** Picks the entity and claim extractors the settings ask for. */
import type { LlmEndpointOptions } from '@tessera/llm';
import { type ExtractorsEnv, extractorsEnv } from '../env';
import { OpenAIClaimExtractor } from './claims';
import { CompromiseEntityExtractor } from './embedded';
import { GlinerEntityExtractor } from './gliner';
import { OpenAIEntityExtractor } from './llm-entities';
import type { ClaimExtractor, EntityExtractor } from './types';

/** The LLM endpoint of the settings, or undefined when `TESSERA_LLM_BASE_URL` is not set. */
export function llmEndpointOptions(env: ExtractorsEnv = extractorsEnv): LlmEndpointOptions | undefined {
  if (!env.llmBaseUrl || !env.llmModel) return undefined;
  return {
    baseURL: env.llmBaseUrl,
    model: env.llmModel,
    apiKey: env.llmApiKey,
    temperature: env.llmTemperature,
    maxTokens: env.llmMaxTokens,
    requestTimeout: env.llmRequestTimeout,
    numRetries: env.llmNumRetries,
    seed: env.llmSeed,
  };
}

/** `TESSERA_ENTITY_EXTRACTOR`: `embedded` (default), `gliner` (`TESSERA_GLINER_URL`) or `llm`. */
export function createEntityExtractor(env: ExtractorsEnv = extractorsEnv): EntityExtractor {
  switch (env.entityExtractor) {
    case 'gliner':
      if (!env.glinerUrl) throw new Error('TESSERA_GLINER_URL is required for the gliner extractor');
      return new GlinerEntityExtractor({
        url: env.glinerUrl,
        threshold: env.glinerThreshold,
        timeoutMs: env.glinerTimeoutMs,
      });
    case 'llm': {
      const options = llmEndpointOptions(env);
      if (!options)
        throw new Error('TESSERA_LLM_BASE_URL and TESSERA_LLM_MODEL are required for the llm extractor');
      return new OpenAIEntityExtractor(options);
    }
    default:
      return new CompromiseEntityExtractor();
  }
}

/** The claim extractor of the configured LLM endpoint; undefined without one (callers skip claims and say so). */
export function createClaimExtractor(env: ExtractorsEnv = extractorsEnv): ClaimExtractor | undefined {
  const options = llmEndpointOptions(env);
  return options ? new OpenAIClaimExtractor(options) : undefined;
}
