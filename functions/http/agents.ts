/** Agent routes: the registry, agent cards, capability lookup, and dispatch of a task to an agent. */
import {
  AgentRegistry,
  agents,
  byCapability,
  card,
  processAgent as dispatch,
  listing,
  registeredAgents,
} from '@tessera/agents';
import { Agents } from '@tessera/api';
import { httpRoute } from '@tessera/http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

const deps = agents();

/** Time kept back from a function's remaining time to answer after a run is cancelled. */
const ANSWER_MARGIN_MS = 1500;

/** The runtime's base URL as the request reached it (API Gateway's domain, or the local runtime's host). */
function baseUrl(event: APIGatewayProxyEventV2): string {
  const host = event.headers?.host ?? event.requestContext.domainName;
  const protocol = event.headers?.['x-forwarded-proto'] ?? 'http';
  return `${protocol}://${host}`;
}

export const listAgents = httpRoute(Agents.listAgents, async ({ event }) =>
  listing(await registeredAgents(deps, baseUrl(event))),
);

export const agentsByCapability = httpRoute(Agents.agentsByCapability, async ({ path, event }) =>
  byCapability(await registeredAgents(deps, baseUrl(event)), path.capability),
);

export const agentCard = httpRoute(Agents.agentCard, async ({ path, event }) =>
  card(AgentRegistry.find(await registeredAgents(deps, baseUrl(event)), path.agent_name), deps.version),
);

/** The request ends when the function's time does: the run is cancelled a little before, so it can answer. */
export const processAgent = httpRoute(Agents.processAgent, ({ path, body, event, context }) =>
  dispatch(deps, path.agent_name, body, {
    baseUrl: baseUrl(event),
    signal: AbortSignal.timeout(Math.max(1, context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS)),
  }),
);
