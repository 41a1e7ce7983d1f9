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

/** The version agent cards carry. */
export const AGENTS_VERSION = '0.1.0';

let deps: AgentsDeps | undefined;

export function agents(): AgentsDeps {
  deps ??= {
    registry: new AgentRegistry(loadRegistry(platformEnv.configDir), new Set(AGENTS.keys())),
    content: content(),
    config: config(),
    events: taskEvents(),
    llm: llmClient(),
    entities: createEntityExtractor(),
    memories: memories(),
    version: AGENTS_VERSION,
    graph: graphDeps(),
    ocr: mediaOcr(),
  };
  return deps;
}

let probe: HealthProbe | undefined;

/** The process's health probe of the agent endpoints (its cache is per process). */
export function agentHealth(): HealthProbe {
  probe ??= new HealthProbe();
  return probe;
}
