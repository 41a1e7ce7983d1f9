/** What the agents and their dispatch need, built once per process. */
import type { ConfigDeps } from '@tessera/config';
import type { ContentDeps } from '@tessera/content';
import type { TaskEvents } from '@tessera/events';
import type { EntityExtractor } from '@tessera/extractors';
import type { GraphDeps } from '@tessera/graph';
import type { LlmClient } from '@tessera/llm';
import type { MemoriesDeps } from '@tessera/memories';
import type { CompletedRuns } from './completed-runs';
import type { AgentsEnv } from './env';
import type { OcrReader } from './ocr';
import type { AgentRegistry } from './registry';

export interface AgentsDeps {
  registry: AgentRegistry;
  /** The tenant guard, profiles and the content index the retrieval agents search. */
  content: ContentDeps;
  /** The system configuration (agent overrides) and the tenants' routing records. */
  config: ConfigDeps;
  /** Workflow runs are reported here. */
  events: TaskEvents;
  /** The platform's one LLM client. */
  llm: LlmClient;
  /** The entity tagger of the entity extraction, text analysis and gateway agents. */
  entities: EntityExtractor;
  /** The tenants' agent memories and instructions. */
  memories: MemoriesDeps;
  /** The runtime's version, for agent cards. */
  version: string;
  /** The tenants' knowledge graphs (query enhancement); without it no graph neighbours are found. */
  graph?: GraphDeps;
  /** Reads a photo's text (image search); without it a photo is refused with 422. */
  ocr?: OcrReader;
  /** The bounds of orchestrations and deep research; `agentsEnv` when not given. */
  settings?: AgentsEnv;
  /**
   * Where each completed run of `POST /agents/{name}/process` (and chat) goes for its memory and wiki
   * filing: the completed-run queue in the production wiring. Without it the run's memory is written in
   * this process without the answer waiting (a process that outlives its requests: tests over fakes).
   */
  completedRuns?: CompletedRuns;
}
