/** The agents this build implements; the other agents of the roster answer 501 (see dispatch). */
import type { Agent } from '../agent';
import { entityExtractionAgent } from './entities';
import { gatewayAgent } from './gateway';
import { profileSelectionAgent } from './profile-selection';
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
    profileSelectionAgent,
    summarizerAgent,
  ].map((agent) => [agent.name, agent]),
);
