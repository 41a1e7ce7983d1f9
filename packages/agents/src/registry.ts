/**
 * The agent registry: document 3's 23 agents with their defaults from `configs/agents.json`, the system
 * configuration's per-agent overrides (`enabled`, `url`, `timeout`) on top, and the cards, listings and
 * capability lookups generated from it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agents, type Config } from '@tessera/api';
import { NotFoundError } from '@tessera/core';
import { z } from 'zod';

const AgentDefaults = z.strictObject({
  port: z.number().int().min(1).max(65_535),
  enabled: z.boolean(),
  capabilities: z.array(z.string().min(1)).min(1),
  modalities: z.array(Agents.Modality).default([]),
  timeout: z.number().positive().max(3600).default(30),
  description: z.string().min(1),
  url: z.url().optional(),
});
export type AgentDefaults = z.output<typeof AgentDefaults>;

const RegistryFile = z.strictObject({
  $comment: z.string().optional(),
  agents: z.record(z.string(), AgentDefaults),
});

/** The defaults of every agent; a key that names no agent of the runtime, or a missing agent, fails the load. */
export function parseRegistry(json: unknown, source: string): Map<Agents.AgentName, AgentDefaults> {
  const parsed = RegistryFile.safeParse(json);
  if (!parsed.success) {
    throw new Error(`Invalid agent registry ${source}: ${z.prettifyError(parsed.error)}`);
  }
  const known = new Set<string>(Agents.AGENT_NAMES);
  const unknown = Object.keys(parsed.data.agents).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(`Invalid agent registry ${source}: unknown agents ${unknown.join(', ')}`);
  }
  const missing = Agents.AGENT_NAMES.filter((name) => !(name in parsed.data.agents));
  if (missing.length > 0) {
    throw new Error(`Invalid agent registry ${source}: missing agents ${missing.join(', ')}`);
  }
  return new Map(Agents.AGENT_NAMES.map((name) => [name, parsed.data.agents[name]!]));
}

export function loadRegistry(configDir: string): Map<Agents.AgentName, AgentDefaults> {
  const file = path.join(configDir, 'agents.json');
  return parseRegistry(JSON.parse(readFileSync(file, 'utf8')), file);
}

/** Agents whose runs are workflow tasks that may outlive an API Gateway request (document 3's producers). */
export const LONG_RUN_AGENTS: ReadonlySet<string> = new Set(['orchestrator_agent', 'deep_research_agent']);

/** One agent as the registry holds it for a deployment. */
export interface RegisteredAgent {
  name: Agents.AgentName;
  description: string;
  url: string;
  capabilities: string[];
  modalities: Agents.Modality[];
  enabled: boolean;
  timeout: number;
  /** This build implements the agent. */
  available: boolean;
  health_status: Agents.HealthStatus;
}

export const isAgentName = (name: string): name is Agents.AgentName =>
  (Agents.AGENT_NAMES as readonly string[]).includes(name);

/**
 * The registry of a deployment: the defaults with the system configuration's overrides, every agent's URL the
 * runtime's base URL unless an override or the defaults name another.
 */
export class AgentRegistry {
  constructor(
    private readonly defaults: Map<Agents.AgentName, AgentDefaults>,
    private readonly implemented: ReadonlySet<string>,
  ) {}

  /** `longRunUrl`: the url of the long-run agents when the deployment serves them apart (AWS). */
  resolve(overrides: Config.SystemConfig['agents'], baseUrl: string, longRunUrl?: string): RegisteredAgent[] {
    return [...this.defaults].map(([name, entry]) => {
      const override = overrides[name] ?? {};
      const own = LONG_RUN_AGENTS.has(name) ? (longRunUrl ?? baseUrl) : baseUrl;
      return {
        name,
        description: entry.description,
        url: (override.url ?? entry.url ?? own).replace(/\/+$/, ''),
        capabilities: entry.capabilities,
        modalities: entry.modalities,
        enabled: override.enabled ?? entry.enabled,
        timeout: override.timeout ?? entry.timeout,
        available: this.implemented.has(name),
        // Health is probed by a later step; until then every endpoint is cached as unknown (document 3).
        health_status: 'unknown',
      };
    });
  }

  /** The agent of `name`; 404 `Agent '<name>' not found` for any other name. */
  static find(agents: RegisteredAgent[], name: string): RegisteredAgent {
    const agent = agents.find((entry) => entry.name === name);
    if (!agent) throw new NotFoundError(`Agent '${name}' not found`);
    return agent;
  }
}

export function listing(agents: RegisteredAgent[]): Agents.AgentList {
  return {
    agents: agents.map(({ name, url, capabilities, modalities, enabled, available, health_status }) => ({
      name,
      url,
      capabilities,
      modalities,
      enabled,
      available,
      health_status,
    })),
    count: agents.length,
  };
}

export function byCapability(agents: RegisteredAgent[], capability: string): Agents.CapabilityAgents {
  const matching = agents
    .filter((agent) => agent.capabilities.includes(capability))
    .map(({ name, url, capabilities, health_status }) => ({ name, url, capabilities, health_status }));
  return { capability, count: matching.length, agents: matching };
}

const title = (text: string) =>
  text
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');

/** The agent's A2A card (protocol 0.3 fields), with the registry's endpoint data. */
export function card(agent: RegisteredAgent, version: string): Agents.AgentCard {
  const processEndpoint = `/agents/${agent.name}/process`;
  return {
    protocolVersion: '0.3.0',
    name: agent.name,
    description: agent.description,
    url: `${agent.url}${processEndpoint}`,
    preferredTransport: 'HTTP+JSON',
    version,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      stateTransitionHistory: agent.name === 'orchestrator_agent' || agent.name === 'deep_research_agent',
    },
    skills: agent.capabilities.map((capability) => ({
      id: capability,
      name: title(capability),
      description: `${title(capability)} by ${agent.name}`,
      tags: [capability, ...agent.modalities],
    })),
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    health_endpoint: '/health',
    process_endpoint: processEndpoint,
    timeout: agent.timeout,
    enabled: agent.enabled,
    available: agent.available,
    health_status: agent.health_status,
  };
}
