/** The agents' dependencies over the in-memory fakes, as the unit tests build them. */
import path from 'node:path';
import { llmClientOf } from '@tessera/config/llm';
import { CompromiseEntityExtractor } from '@tessera/extractors';
import { parseLlmEnv } from '@tessera/llm';
import type { FakeDomains } from '@tessera/testing/fakes';
import { AGENTS, AgentRegistry, type AgentsDeps, loadRegistry } from '../src/index';

export const configDir = path.resolve(import.meta.dirname, '../../../configs');

/** Deps over `domains` with no LLM endpoint configured; `names` are the agents the registry knows as built. */
export function fakeAgentsDeps(
  domains: FakeDomains,
  more: Partial<AgentsDeps> = {},
  names: Iterable<string> = AGENTS.keys(),
): AgentsDeps {
  return {
    registry: new AgentRegistry(loadRegistry(configDir), new Set(names)),
    content: domains.content,
    config: domains.config,
    events: domains.ingestion.events,
    llm: llmClientOf(domains.config, parseLlmEnv({})),
    entities: new CompromiseEntityExtractor(),
    memories: domains.memories,
    version: '0.1.0',
    ...more,
  };
}
