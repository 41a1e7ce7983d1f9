/** The production wiring of the agents, built once per process. */
import { config } from '@tessera/config';
import { llmClient } from '@tessera/config/llm';
import { content } from '@tessera/content';
import { taskEvents } from '@tessera/events';
import { createEntityExtractor, type EntityExtractor } from '@tessera/extractors';
import { graphDeps } from '@tessera/graph';
import { memories } from '@tessera/memories';
import { platformEnv } from '@tessera/platform';
import { fileInBackground, wiki } from '@tessera/wiki';
import { AGENTS } from './agents/index';
import type { AgentsDeps } from './deps';
import { HealthProbe } from './health';
import { mediaOcr } from './ocr';
import { AgentRegistry, loadRegistry } from './registry';

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
    // Document 3's auto-filing: a completed run that meets its rule is saved to the wiki in the background.
    onCompleted: (run) => void fileInBackground(wiki(), run, entityNames(entities)),
  };
  return deps;
}

let probe: HealthProbe | undefined;

/** The process's health probe of the agent endpoints (its cache is per process). */
export function agentHealth(): HealthProbe {
  probe ??= new HealthProbe();
  return probe;
}

/** Entity names the tagger finds in a text. */
export function entityNames(extractor: EntityExtractor): (text: string) => Promise<string[]> {
  return async (text) =>
    (await extractor.extract(text, { sourceDocId: 'agent-run', segmentId: 'answer' })).map((e) => e.text);
}
