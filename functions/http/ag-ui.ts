/** AG-UI runs of the agents (server-sent AG-UI events), guarded by harness keys, and the keys' admin routes. */

import { Chat } from '@tessera/api';
import {
  AgUiFrames,
  agUiTurn,
  chat,
  keyTenant,
  mintKey,
  parseRunInput,
  revokeKey,
  runAgUi,
} from '@tessera/chat';
import { tracing } from '@tessera/config';
import { httpRoute, reply, streamRoute } from '@tessera/http';
import { requireTenant } from '@tessera/tenancy';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { z } from 'zod';

const deps = chat();
// Spans of this module follow tenants' telemetry records.
tracing();

const ANSWER_MARGIN_MS = 1500;

function baseUrl(event: APIGatewayProxyEventV2): string {
  const host = event.headers?.host ?? event.requestContext.domainName;
  const protocol = event.headers?.['x-forwarded-proto'] ?? 'http';
  return `${protocol}://${host}`;
}

const deadline = (context: Context | undefined) =>
  context
    ? AbortSignal.timeout(Math.max(1, context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS))
    : undefined;

export const agUiRun = streamRoute(
  // The body is checked by @ag-ui/core's own schema (parseRunInput), in AG-UI's terms.
  { route: Chat.agUiRun.route, path: Chat.agUiRun.path, body: z.unknown() },
  async ({ guard, path, body, event, context, signal, open }) => {
    const turn = await agUiTurn(deps, path.agent, guard, parseRunInput(body), baseUrl(event));
    const stream = open();
    const frames = new AgUiFrames();
    const timeout = deadline(context);
    await runAgUi(deps, turn, (agUiEvent) => stream.write(frames.frame(agUiEvent)), {
      baseUrl: baseUrl(event),
      signal: timeout ? AbortSignal.any([signal, timeout]) : signal,
    });
  },
  // The key is checked before the body is read: a caller without one learns nothing of the route.
  { guard: (event: APIGatewayProxyEventV2) => keyTenant(deps, event.headers?.authorization) },
);

export const createHarnessKey = httpRoute(Chat.createHarnessKey, async ({ body }) => {
  const { tenant } = await requireTenant(deps.agents.content.tenancy, body.tenant_id);
  return reply(201, await mintKey(deps.keys, tenant.full, body.ttl, deps.now()));
});

export const revokeHarnessKey = httpRoute(Chat.revokeHarnessKey, ({ path }) =>
  revokeKey(deps.keys, path.key_id, deps.now()),
);
