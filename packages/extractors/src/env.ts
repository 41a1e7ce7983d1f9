/** Settings of the document extractors, parsed once at load so a bad value fails at start. */
import { availableParallelism } from 'node:os';
import { parseEnv, type Settings } from '@tessera/core';
import { llmVariables } from '@tessera/llm';
import { z } from 'zod';

const schema = z
  .object({
    /** `embedded` (compromise's lexicon tagger, offline), `gliner` (a GLiNER sidecar) or `llm`. */
    TESSERA_ENTITY_EXTRACTOR: z.enum(['embedded', 'gliner', 'llm']).default('embedded'),
    /** Threads the embedded tagger runs on (default: one a core); 0 tags in the main thread. */
    TESSERA_ENTITY_THREADS: z.coerce
      .number()
      .int()
      .min(0)
      .max(64)
      .default(() => availableParallelism()),
    /** GLiNER sidecar speaking `POST /predict_entities`. */
    TESSERA_GLINER_URL: z.url().optional(),
    TESSERA_GLINER_THRESHOLD: z.coerce.number().min(0).max(1).default(0.5),
    TESSERA_GLINER_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    /** The deployment's LLM endpoint (`@tessera/llm`), for extractors built from the environment alone. */
    ...llmVariables,
  })
  .superRefine((env, ctx) => {
    if (env.TESSERA_ENTITY_EXTRACTOR === 'gliner' && !env.TESSERA_GLINER_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['TESSERA_GLINER_URL'],
        message: 'required when TESSERA_ENTITY_EXTRACTOR is gliner',
      });
    }
    if (env.TESSERA_ENTITY_EXTRACTOR === 'llm' && !env.TESSERA_LLM_BASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['TESSERA_LLM_BASE_URL'],
        message: 'required when TESSERA_ENTITY_EXTRACTOR is llm',
      });
    }
    if (env.TESSERA_LLM_BASE_URL && !env.TESSERA_LLM_MODEL) {
      ctx.addIssue({
        code: 'custom',
        path: ['TESSERA_LLM_MODEL'],
        message: 'required when TESSERA_LLM_BASE_URL is set',
      });
    }
  });

export type ExtractorsEnv = Settings<z.infer<typeof schema>>;

/** Parses a set of variables; an empty variable counts as unset. */
export function parseExtractorsEnv(variables: Record<string, string | undefined>): ExtractorsEnv {
  return parseEnv('extractor', schema, variables);
}

export const extractorsEnv = parseEnv('extractor', schema);
