/** Messaging admin routes: invites, registration, resolve, the outbound drain and sending to a tenant's chats. */
import { Messaging } from '@tessera/api';
import { tracing } from '@tessera/config';
import { httpRoute, reply } from '@tessera/http';
import {
  createInvite,
  drain as drainOutbound,
  messaging,
  register as registerUser,
  resolveUser,
  sendToTenant,
} from '@tessera/messaging';

const deps = messaging();
// Spans of this module follow tenants' telemetry records.
tracing();

export const invite = httpRoute(Messaging.invite, async ({ body }) =>
  reply(201, await createInvite(deps, body.tenant_id, body.expires_in_hours)),
);

export const register = httpRoute(Messaging.register, async ({ body }) => {
  const answer = await registerUser(deps, body);
  if (answer.status === 'registered') return answer;
  return answer.status === 'invalid_token' ? reply(404, answer) : reply(503, answer);
});

export const resolve = httpRoute(Messaging.resolve, async ({ query }) => {
  const answer = await resolveUser(deps, query.platform, query.external_user_id);
  return answer.status === 'ok' ? answer : reply(503, answer);
});

export const drain = httpRoute(Messaging.drain, ({ query }) => drainOutbound(deps, query.platform));

export const send = httpRoute(Messaging.send, ({ body }) => sendToTenant(deps, body.tenant_id, body.text));
