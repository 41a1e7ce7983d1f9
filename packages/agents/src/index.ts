/**
 * Agents (document 3): the registry of the 23 agents with their defaults and the deployment's overrides,
 * dispatch of a task to an agent (with workflow reporting), and the agents this build implements.
 */
export {
  type Agent,
  type AgentRun,
  answerCall,
  type ProcessContext,
  systemPrompt,
  type TextSink,
} from './agent';
export { explainRun } from './agents/audit';
export { unsafePath } from './agents/coding';
export { classify, classifyQuery, executionAgent, route } from './agents/gateway';
export { AGENTS } from './agents/index';
export { sameOrganization } from './agents/knowledge';
export { guessModality, selectProfile } from './agents/profile-selection';
export { seedsOf } from './agents/query-enhancement';
export { bestSentence, photoBytes } from './agents/search';
export { extractiveSummary } from './agents/summarizer';
export {
  CompletedRunMessage,
  type CompletedRuns,
  completedRunMessage,
  InProcessCompletedRuns,
  MAX_MESSAGE_BYTES,
  type RecordDeps,
  recordCompletedRun,
  recordCompletedRuns,
} from './completed-runs';
export type { AgentsDeps } from './deps';
export {
  agentsBaseUrl,
  processAgent,
  registeredAgents,
  runAgentTask,
  runKnowledgeAgent,
  WORKFLOW_AGENTS,
} from './dispatch';
export { entityNames } from './entity-names';
export { type AgentsEnv, agentsEnv, parseAgentsEnv } from './env';
export { AgentNotAvailableError, RunTimedOutError } from './errors';
export { HealthProbe } from './health';
export { answerLine, memoryOf } from './memory';
export { imageFormat, mediaOcr, type OcrReader } from './ocr';
export { callSubAgent } from './orchestration/http';
export { resultText } from './orchestration/orchestrator';
export { NOT_PLANNABLE, normalizePlan, type Plan, PlannerAnswer, plannerFormat } from './orchestration/plan';
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
export { SqsCompletedRuns } from './sqs-completed-runs';
export { conversationLines, detectLanguage, keywords, sentences, words } from './text';
export { AGENTS_VERSION, agentHealth, agents } from './wiring';
