/** The errors of dispatch: agents that cannot run, and failures of what agents call, as HTTP answers. */
import type { Agents } from '@tessera/api';
import { BadGatewayError, HttpError } from '@tessera/core';
import { LlmCallError, LlmConfigurationError, LlmUnavailableError } from '@tessera/llm';

/** 501: an agent of the roster that this build does not implement yet. */
export class AgentNotAvailableError extends HttpError {
  constructor(agent: Agents.AgentName) {
    const message = `Agent '${agent}' is not available in this build yet`;
    super(501, { error: 'agent_not_available', agent, message }, message);
  }
}

/** 504: the request's time ended before the run finished. */
export class RunTimedOutError extends HttpError {
  constructor(message: string) {
    super(504, message);
  }
}

/** An agent's failure as the route answers it: HTTP errors pass, an LLM's become 503 or 502. */
export function answerOf(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  if (error instanceof LlmUnavailableError) {
    return new HttpError(503, { error: 'llm_unavailable', message: error.message }, error.message);
  }
  if (error instanceof LlmCallError || error instanceof LlmConfigurationError) {
    return new BadGatewayError(error.message);
  }
  return error;
}
