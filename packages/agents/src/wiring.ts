/** The production wiring of the agents, built once per process. */
import { config } from '@tessera/config';
import { llmClient } from '@tessera/config/llm';
import { content } from '@tessera/content';
import { taskEvents } from '@tessera/events';
import { createEntityExtractor } from '@tessera/extractors';
import { graphDeps } from '@tessera/graph';
import { memories } from '@tessera/memories';
import { platformEnv } from '@tessera/platform';
import { AGENTS } from './agents/index';
import type { AgentsDeps } from './deps';
import { HealthProbe } from './health';
import { mediaOcr } from './ocr';
import { AgentRegistry, loadRegistry } from './registry';
import { SqsCompletedRuns } from './sqs-completed-runs';

/** The version agent cards carry. */
export const AGENTS_VERSION = '0.1.0';

let deps: AgentsDeps | undefined;

export function agents(): AgentsDeps {
  if (deps) return deps;
  const entities = createEntityExtractor();
  deps = {
    registry: new AgentRegistry(loadRegistry(platformEnv.configDir), new Set(AGENTS.keys())),
    content: content(),
    config: config(),
    events: taskEvents(),
    llm: llmClient(),
    entities,
    memories: memories(),
    version: AGENTS_VERSION,
    graph: graphDeps(),
    ocr: mediaOcr(),
    // Each completed run's memory and wiki filing (document 3's auto-filing), by the agent-runs worker.
    completedRuns: new SqsCompletedRuns(),
  };
  return deps;
}

let probe: HealthProbe | undefined;

/** The process's health probe of the agent endpoints (its cache is per process). */
export function agentHealth(): HealthProbe {
  probe ??= new HealthProbe();
  return probe;
}
