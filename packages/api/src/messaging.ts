/**
 * Messaging admin (document 3 "Messaging admin"; clarifications "Messaging"): invite tokens, registration of
 * chat users by token, resolving a user's tenant, the outbound drain and queueing a message for a tenant's
 * linked chats. Registration and resolve answer `status` bodies the gateway reads, not error details.
 */
import { z } from 'zod';
import { route } from './contract';
import { outage, tenantGuard } from './errors';

const TenantIdField = z.string().min(1).max(200).meta({ description: 'The tenant (`org:tenant` or `org`).' });

export const Platform = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,31}$/, 'a platform name: lower-case letters, digits and underscores')
  .meta({ description: 'The chat platform (`telegram`).' });

export const ExternalUserId = z
  .string()
  .regex(/^[\x21-\x7e]{1,128}$/, 'a user id: 1 to 128 printable ASCII characters without spaces')
  .meta({
    description: "The user's id on the platform (Telegram: the user id, which is their private chat's id).",
  });

export const InviteRequest = z
  .strictObject({
    tenant_id: TenantIdField,
    expires_in_hours: z.number().int().min(1).max(720).default(24),
  })
  .meta({ id: 'InviteRequest' });

export const Invite = z
  .object({
    token: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .meta({ description: '32 hex digits.' }),
    tenant_id: z.string(),
    expires_at: z.string().meta({ description: 'ISO 8601.' }),
  })
  .meta({ id: 'Invite' });
export type Invite = z.infer<typeof Invite>;

export const RegisterRequest = z
  .strictObject({
    platform: Platform,
    external_user_id: ExternalUserId,
    token: z.string().min(1).max(200),
  })
  .meta({ id: 'RegisterRequest' });

export const Registered = z
  .object({ status: z.literal('registered'), tenant_id: z.string() })
  .meta({ id: 'Registered' });
export const InvalidToken = z.object({ status: z.literal('invalid_token') }).meta({ id: 'InvalidToken' });
export const Unavailable = z
  .object({ status: z.literal('unavailable') })
  .meta({ id: 'MessagingUnavailable' });

export const ResolveQuery = z.object({ platform: Platform, external_user_id: ExternalUserId });
export const Resolved = z
  .object({
    status: z.literal('ok'),
    tenant_id: z.string().nullable().meta({ description: 'null: the user is not registered.' }),
  })
  .meta({ id: 'Resolved' });

export const DrainQuery = z.object({ platform: Platform.default('telegram') });
export const DrainedMessage = z
  .object({ chat_id: z.string(), text: z.string() })
  .meta({ id: 'DrainedMessage' });
export const Drained = z.array(DrainedMessage).meta({ id: 'Drained' });
export type DrainedMessage = z.infer<typeof DrainedMessage>;

export const SendRequest = z
  .strictObject({ tenant_id: TenantIdField, text: z.string().trim().min(1).max(20_000) })
  .meta({ id: 'SendRequest' });
export const Sent = z
  .object({
    queued: z.number().int().meta({ description: 'How many linked chats the message was queued for.' }),
  })
  .meta({ id: 'Sent' });

export const invite = route({
  id: 'invite',
  group: 'messaging',
  method: 'POST',
  route: '/admin/messaging/invite',
  summary: 'Mint an invite token for a tenant',
  description: 'The token registers one chat user (`/start <token>` in the gateway) before it expires.',
  body: InviteRequest,
  responses: { 201: { description: 'The token.', schema: Invite } },
  errors: { ...tenantGuard, 503: outage },
});

export const register = route({
  id: 'register',
  group: 'messaging',
  method: 'POST',
  route: '/admin/messaging/register',
  summary: 'Register a chat user with an invite token',
  description:
    'Claims the token for the user, maps the user to its tenant, then consumes it. Of concurrent registrations of one token exactly one answers `registered`; a registration that failed keeps the token claimed for its user, whose retry resumes.',
  body: RegisterRequest,
  responses: {
    200: { description: 'Registered.', schema: Registered },
    404: {
      description: 'The token is unknown, expired, used or claimed by another user.',
      schema: InvalidToken,
    },
    503: { description: 'The store did not answer; the claim is kept for this user.', schema: Unavailable },
  },
  errors: {},
});

export const resolve = route({
  id: 'resolve',
  group: 'messaging',
  method: 'GET',
  route: '/admin/messaging/resolve',
  summary: "A chat user's tenant",
  query: ResolveQuery,
  responses: {
    200: { description: 'The tenant, or null for an unregistered user.', schema: Resolved },
    503: { description: 'The store did not answer.', schema: Unavailable },
  },
  errors: {},
});

export const drain = route({
  id: 'drain',
  group: 'messaging',
  method: 'GET',
  route: '/admin/messaging/outbound/drain',
  summary: 'Take the queued messages of a platform',
  description:
    "Each message is cleared by the drain that returns it: two drains never return the same one. A drain reads only its platform's messages and those for every linked chat (a job's notice); the first drain to take one of those returns it for each of the tenant's chats on its platform and queues it for each chat on another platform.",
  query: DrainQuery,
  responses: { 200: { description: 'The messages, oldest first.', schema: Drained } },
  errors: { 503: outage },
});

export const send = route({
  id: 'send',
  group: 'messaging',
  method: 'POST',
  route: '/messaging/send',
  summary: "Queue a message for a tenant's linked chats",
  body: SendRequest,
  responses: { 200: { description: 'Queued for every linked chat.', schema: Sent } },
  errors: { ...tenantGuard, 503: outage },
});
