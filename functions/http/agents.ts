/** Agent routes: the registry, agent cards, capability lookup, and dispatch of a task to an agent. */
import { AgentRegistry, agentHealth, byCapability, card, listing, registeredAgents } from '@tessera/agents';
import { Agents } from '@tessera/api';
import { chat, processInConversation } from '@tessera/chat';
import { httpRoute } from '@tessera/http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

const chatDeps = chat();
const deps = chatDeps.agents;

/** Time kept back from a function's remaining time to answer after a run is cancelled. */
const ANSWER_MARGIN_MS = 1500;

/** The runtime's base URL as the request reached it (API Gateway's domain, or the local runtime's host). */
function baseUrl(event: APIGatewayProxyEventV2): string {
  const host = event.headers?.host ?? event.requestContext.domainName;
  const protocol = event.headers?.['x-forwarded-proto'] ?? 'http';
  return `${protocol}://${host}`;
}

const health = agentHealth();

/** The registry with each endpoint's probed health (cached per process). */
const withHealth = async (event: APIGatewayProxyEventV2) =>
  health.annotate(await registeredAgents(deps, baseUrl(event)));

export const listAgents = httpRoute(Agents.listAgents, async ({ event }) => listing(await withHealth(event)));

export const agentsByCapability = httpRoute(Agents.agentsByCapability, async ({ path, event }) =>
  byCapability(await withHealth(event), path.capability),
);

export const agentCard = httpRoute(Agents.agentCard, async ({ path, event }) => {
  const agents = await registeredAgents(deps, baseUrl(event));
  const entry = AgentRegistry.find(agents, path.agent_name);
  return card({ ...entry, health_status: await health.status(entry.url) }, deps.version);
});

/** The request ends when the function's time does: the run is cancelled a little before, so it can answer. */
export const processAgent = httpRoute(Agents.processAgent, ({ path, body, event, context }) =>
  // A `context.context_id` names a conversation: its history goes to the agent and the turn is kept.
  processInConversation(chatDeps, path.agent_name, body, {
    baseUrl: baseUrl(event),
    signal: AbortSignal.timeout(Math.max(1, context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS)),
  }),
);

const PROCESS_PATH = /^\/agents\/([^/]+)\/process\/?$/;

/**
 * The same dispatch behind the long-run function's URL (orchestrations and deep research, up to its 900 s):
 * a Function URL event carries no path parameters, so they are read from its path.
 */
export const processLongRun = (event: APIGatewayProxyEventV2, context: Context) => {
  const match = PROCESS_PATH.exec(event.rawPath ?? '');
  const pathParameters =
    event.pathParameters && Object.keys(event.pathParameters).length > 0
      ? event.pathParameters
      : match
        ? { agent_name: decodeURIComponent(match[1]!) }
        : {};
  return processAgent({ ...event, pathParameters }, context);
};
