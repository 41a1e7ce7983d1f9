/**
 * The OpenAPI 3.1 document of every route, built from the contracts: each operation with its parameters,
 * body, success answers and error answers. The stack's own answers are added where they apply: 422 for a
 * route that validates anything, 413 and 415 for a route that reads a body, and 400 (a request the HTTP
 * layer refuses), 431 and 500 everywhere.
 */
import type { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { BackendConfig, LlmEndpointConfig, RoutingConfig, TelemetryConfig } from './config';
import type { Answer, RouteContract } from './contract';
import { BusinessRuleError, stackErrors } from './errors';
import { contracts } from './routes';

const VERSION = '0.1.0';

function content(answer: Answer, type = 'application/json') {
  return { description: answer.description, content: { [type]: { schema: answer.schema } } };
}

/** The error answers of a route: the stack's where they apply, then the route's own over them. */
export function errorAnswers(contract: RouteContract): Record<number, Answer> {
  const answers: Record<number, Answer> = { 400: stackErrors[400], 431: stackErrors[431] };
  if (contract.body || contract.form)
    Object.assign(answers, { 413: stackErrors[413], 415: stackErrors[415] });
  if (contract.path || contract.query || contract.body || contract.form) answers[422] = stackErrors[422];
  answers[500] = stackErrors[500];
  return Object.assign(answers, contract.errors);
}

function operation(contract: RouteContract): ZodOpenApiOperationObject {
  const responses: Record<string, { description: string; content?: ReturnType<typeof content>['content'] }> =
    {};
  for (const [status, answer] of Object.entries(contract.responses)) {
    responses[status] =
      status === '204'
        ? { description: answer.description }
        : content(answer, contract.stream ? 'text/event-stream' : 'application/json');
  }
  if (contract.streamSchema && responses['200']?.content) {
    responses['200'].content['text/event-stream'] = { schema: contract.streamSchema };
  }
  for (const [status, answer] of Object.entries(errorAnswers(contract))) responses[status] = content(answer);
  return {
    operationId: contract.id,
    tags: [contract.group],
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    ...(contract.path || contract.query
      ? {
          requestParams: {
            ...(contract.path ? { path: contract.path as z.ZodObject } : {}),
            ...(contract.query ? { query: contract.query as z.ZodObject } : {}),
          },
        }
      : {}),
    ...(contract.body
      ? {
          requestBody: {
            // A body with defaults for everything (a cancel's reason) may be left out.
            required: !contract.body.safeParse(undefined).success,
            content: { 'application/json': { schema: contract.body } },
          },
        }
      : {}),
    ...(contract.form
      ? {
          requestBody: {
            required: true,
            content: { 'multipart/form-data': { schema: contract.form.document } },
          },
        }
      : {}),
    responses,
  };
}

/** The document of `routes` (every contract by default). */
export function openApiDocument(routes: readonly RouteContract[] = contracts) {
  const paths: ZodOpenApiPathsObject = {};
  for (const contract of routes) {
    paths[contract.route] = {
      ...paths[contract.route],
      [contract.method.toLowerCase()]: operation(contract),
    };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Tessera',
      version: VERSION,
      description:
        'Multi-tenant content intelligence: tenants, profiles, configuration records, search, the knowledge graph, ' +
        'ingestion and task events. ' +
        'Every error answers `{detail}` in one of three shapes: a plain message, a business rule ' +
        '`{message, errors}`, or request validation `[{type, loc, msg, input}]` (422); 503 bodies name ' +
        'the service that did not answer.',
    },
    paths,
    // The tenant configuration records, which one route takes by `kind` (its body refers to them).
    components: {
      schemas: { BusinessRuleError, LlmEndpointConfig, RoutingConfig, TelemetryConfig, BackendConfig },
    },
  });
}

/** The document as `docs/openapi.json` holds it: two-space JSON and a final newline. */
export function openApiJson(routes: readonly RouteContract[] = contracts): string {
  return `${JSON.stringify(openApiDocument(routes), null, 2)}\n`;
}
