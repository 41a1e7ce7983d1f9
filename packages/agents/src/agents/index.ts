/** The agents this build implements; the other agents of the roster answer 501 (see dispatch). */
import type { Agent } from '../agent';
import { orchestratorAgent } from '../orchestration/orchestrator';
import { codingAgent } from './coding';
import { deepResearchAgent } from './deep-research';
import { detailedReportAgent } from './detailed-report';
import { entityExtractionAgent } from './entities';
import { gatewayAgent } from './gateway';
import { KNOWLEDGE_AGENTS } from './knowledge';
import { profileSelectionAgent } from './profile-selection';
import { queryEnhancementAgent } from './query-enhancement';
import { audioAnalysisAgent, documentAgent, imageSearchAgent, searchAgent } from './search';
import { summarizerAgent } from './summarizer';
import { textAnalysisAgent } from './text-analysis';

export const AGENTS: ReadonlyMap<string, Agent> = new Map(
  [
    searchAgent,
    textAnalysisAgent,
    imageSearchAgent,
    audioAnalysisAgent,
    documentAgent,
    gatewayAgent,
    entityExtractionAgent,
    queryEnhancementAgent,
    profileSelectionAgent,
    orchestratorAgent,
    summarizerAgent,
    detailedReportAgent,
    deepResearchAgent,
    codingAgent,
    ...KNOWLEDGE_AGENTS,
  ].map((agent) => [agent.name, agent]),
);
