/**
 * The error bodies of every route (document 2): plain `{detail: message}`, business-rule
 * `{detail: {message, errors}}`, request validation 422 `{detail: [{type, loc, msg, input}]}`, and the 503
 * service-state bodies that name what did not answer.
 */
import { z } from 'zod';
import type { Answer } from './contract';

export const PlainError = z
  .object({ detail: z.string() })
  .meta({ id: 'PlainError', description: 'A plain error: the message for the caller.' });
export type PlainError = z.infer<typeof PlainError>;

export const BusinessRuleError = z
  .object({ detail: z.object({ message: z.string(), errors: z.array(z.string()) }) })
  .meta({
    id: 'BusinessRuleError',
    description: 'Business-rule validation: every rule the request broke, listed at once.',
  });
export type BusinessRuleError = z.infer<typeof BusinessRuleError>;

export const ValidationIssue = z
  .object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    input: z.unknown(),
  })
  .meta({ id: 'ValidationIssue' });
export type ValidationIssue = z.infer<typeof ValidationIssue>;

export const ValidationErrorBody = z
  .object({ detail: z.array(ValidationIssue) })
  .meta({ id: 'ValidationError', description: 'Request validation: each problem with where it is.' });
export type ValidationErrorBody = z.infer<typeof ValidationErrorBody>;

/** A backing service (DynamoDB, S3, SQS, the search backend) refused or timed out. */
export const ServiceUnavailable = z
  .object({
    detail: z.object({ error: z.literal('service_unavailable'), message: z.string() }),
  })
  .meta({ id: 'ServiceUnavailable' });

/** The 503 of the conversation store not answering (as JSON, or the `detail` of a chat stream's error frame). */
export const ConversationsUnavailableDetail = z.object({
  error: z.literal('service_unavailable'),
  service: z.literal('conversations'),
  message: z.string(),
});
export const ConversationsUnavailable = z
  .object({ detail: ConversationsUnavailableDetail })
  .meta({ id: 'ConversationsUnavailable' });

/** The 503 detail of the task event store not answering (document 3). */
export const TaskEventsUnavailableDetail = z.object({
  error: z.literal('task_events_unavailable'),
  message: z.literal('The task event store did not answer; retry.'),
  failure: z.literal('TaskEventsUnavailable'),
  task_id: z.string().optional(),
});
export type TaskEventsUnavailableDetail = z.infer<typeof TaskEventsUnavailableDetail>;

export const TaskEventsUnavailable = z
  .object({ detail: TaskEventsUnavailableDetail })
  .meta({ id: 'TaskEventsUnavailable' });

/** A tenant delete that stopped part-way: the tenant refuses traffic until a repeated DELETE finishes. */
export const TenantDeleteIncomplete = z
  .object({
    detail: z.object({
      error: z.literal('tenant_delete_incomplete'),
      message: z.string(),
      tenant_id: z.string(),
    }),
  })
  .meta({ id: 'TenantDeleteIncomplete' });

/** An answer whose body is a plain error; `description` says when it is given. */
export const plain = (description: string): Answer<typeof PlainError> => ({
  description,
  schema: PlainError,
});

/** The answer of a backing service that did not answer. */
export const outage: Answer = {
  description: 'A backing service did not answer; retry shortly.',
  schema: ServiceUnavailable,
};

/** The task event store did not answer, or another backing service did not. */
export const taskEventsOutage: Answer = {
  description: 'The task event store did not answer (or another backing service did not); retry.',
  schema: z.union([TaskEventsUnavailable, ServiceUnavailable]),
};

/** The tenant guard of every tenant-scoped route. */
export const tenantGuard = {
  400: plain('A malformed tenant id (`Invalid tenant_id format: …`, `Invalid org_id …`).'),
  404: plain("The tenant is not registered: `Tenant '<id>' not registered.`"),
  409: plain('The tenant is marked deleted and refuses all requests until a repeated DELETE finishes.'),
} as const;

/**
 * Stack-level answers: a request the HTTP layer refuses (malformed framing or percent-encoding, headers over
 * their limit), an oversized body, a body of another type, failed validation, an internal error.
 */
export const stackErrors = {
  400: plain(
    'A malformed HTTP request (bad chunked encoding, Content-Length with Transfer-Encoding) or malformed ' +
      'percent-encoding in the path.',
  ),
  431: plain('The request line and headers are over 16 KB.'),
  413: plain(
    'The request body is over what a request through API Gateway to Lambda carries, or a file over the upload limit.',
  ),
  415: plain('The body is not of the content type the route reads.'),
  422: { description: 'The request failed validation.', schema: ValidationErrorBody },
  500: plain('An internal error: `Internal server error`, never its details.'),
} as const;
