/** Settings of the agents: the bounds of orchestrations and deep research, and the endpoint health probes. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

export const agentsSchema = z.object({
  /** Steps an orchestration plan keeps at most (the planner's further steps are dropped). */
  TESSERA_ORCHESTRATOR_MAX_STEPS: z.coerce.number().int().min(1).max(50).default(8),
  /** Iterations (decompose, search, evaluate) a deep-research run makes at most. */
  TESSERA_DEEP_RESEARCH_MAX_ITERATIONS: z.coerce.number().int().min(1).max(20).default(3),
  /** Tokens (prompt and answer, estimated at 4 characters a token) a deep-research run spends at most. */
  TESSERA_DEEP_RESEARCH_MAX_TOKENS: z.coerce.number().int().min(1000).default(60_000),
  /** Seconds of wall time after which a deep-research run stops iterating and synthesizes. */
  TESSERA_DEEP_RESEARCH_MAX_SECONDS: z.coerce.number().positive().max(3600).default(600),
  /**
   * Characters of hits one synthesis call of deep research reads at most: more hits are answered in batches,
   * whose partial answers the recursive synthesis merges.
   */
  TESSERA_DEEP_RESEARCH_SYNTHESIS_CHARS: z.coerce.number().int().min(2000).max(200_000).default(16_000),
  /** Milliseconds an endpoint health probe waits for `<url>/health`. */
  TESSERA_AGENT_HEALTH_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1500),
  /**
   * The long-run function's URL (set by the stacks): the registry's url of the orchestrator and deep research,
   * whose runs outlive an API Gateway request. Unset (the local runtime): the runtime's own base URL.
   */
  TESSERA_AGENT_LONG_RUN_URL: z.url().optional(),
  /**
   * The HTTP API's URL (set by the stacks): every other agent's url, so sub-agent calls go through the API even
   * from a function served by a Function URL (chat, AG-UI, long runs), whose request host is that URL. Unset (the
   * local runtime): the base URL the request reached.
   */
  TESSERA_API_URL: z.url().optional(),
  /** Seconds a probed endpoint's health status is cached. */
  TESSERA_AGENT_HEALTH_TTL_SECONDS: z.coerce.number().min(0).max(3600).default(30),
});

export const parseAgentsEnv = (source?: Record<string, string | undefined>) =>
  parseEnv('agents', agentsSchema, source);

export type AgentsEnv = ReturnType<typeof parseAgentsEnv>;

export const agentsEnv: AgentsEnv = parseAgentsEnv();
