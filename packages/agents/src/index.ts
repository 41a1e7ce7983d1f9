/**
 * Agents (document 3): the registry of the 23 agents with their defaults and the deployment's overrides,
 * dispatch of a task to an agent (with workflow reporting), and the agents this build implements.
 */
export type { Agent, AgentRun, ProcessContext } from './agent';
export { systemPrompt } from './agent';
export { classify, classifyQuery, executionAgent, route } from './agents/gateway';
export { AGENTS } from './agents/index';
export { guessModality, selectProfile } from './agents/profile-selection';
export { bestSentence } from './agents/search';
export { extractiveSummary } from './agents/summarizer';
export type { AgentsDeps } from './deps';
export { processAgent, registeredAgents, WORKFLOW_AGENTS } from './dispatch';
export { AgentNotAvailableError, RunTimedOutError } from './errors';
export { answerLine, memoryOf, rememberRun } from './memory';
export {
  type AgentDefaults,
  AgentRegistry,
  byCapability,
  card,
  isAgentName,
  listing,
  loadRegistry,
  parseRegistry,
  type RegisteredAgent,
} from './registry';
export { detectLanguage, keywords, sentences, words } from './text';
export { AGENTS_VERSION, agents } from './wiring';
