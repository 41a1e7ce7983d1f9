/**
 * The LLM settings of the deployment: the last resort of endpoint resolution (`TESSERA_LLM_*`), and the
 * semantic router switches that override the system configuration's router block.
 */
import { parseEnv, type Settings } from '@tessera/core';
import { z } from 'zod';

const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** The `TESSERA_LLM_*` variables, shared with packages that build an endpoint from them alone. */
export const llmVariables = {
  /** OpenAI-compatible endpoint, including its `/v1`. */
  TESSERA_LLM_BASE_URL: z.url().optional(),
  TESSERA_LLM_MODEL: z.string().min(1).optional(),
  TESSERA_LLM_API_KEY: z.string().min(1).optional(),
  TESSERA_LLM_TEMPERATURE: z.coerce.number().min(0).max(2).default(0.1),
  TESSERA_LLM_MAX_TOKENS: z.coerce.number().int().positive().default(1000),
  /** Seconds before a request times out. */
  TESSERA_LLM_REQUEST_TIMEOUT: z.coerce.number().positive().default(120),
  /** Total attempts per call: 1 means no retry. */
  TESSERA_LLM_NUM_RETRIES: z.coerce.number().int().min(1).max(10).default(1),
  TESSERA_LLM_SEED: z.coerce.number().int().optional(),
};

const schema = z
  .object({
    ...llmVariables,
    /** Overrides the system configuration's `semantic_router.enabled`. */
    SEMANTIC_ROUTER_ENABLED: flag.optional(),
    /** Overrides the system configuration's `semantic_router.semantic_router_url`. */
    SEMANTIC_ROUTER_URL: z.url().optional(),
  })
  .superRefine((env, ctx) => {
    if (env.TESSERA_LLM_BASE_URL && !env.TESSERA_LLM_MODEL) {
      ctx.addIssue({
        code: 'custom',
        path: ['TESSERA_LLM_MODEL'],
        message: 'required when TESSERA_LLM_BASE_URL is set',
      });
    }
  });

export type LlmEnv = Settings<z.infer<typeof schema>>;

/** Parses a set of variables; an empty variable counts as unset. */
export function parseLlmEnv(variables: Record<string, string | undefined>): LlmEnv {
  return parseEnv('LLM', schema, variables);
}

export const llmEnv = parseEnv('LLM', schema);
