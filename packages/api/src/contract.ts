/**
 * What a route contract holds: its method and path, the schemas of its path parameters, query, JSON body or
 * multipart form, and every answer it gives, success and error, each with the schema of its body. Handlers
 * validate with these schemas, clients read answers with them, and the OpenAPI document is built from them.
 */
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** One answer of a route: what it means, and its body. */
export interface Answer<S extends z.ZodType = z.ZodType> {
  description: string;
  schema: S;
}

/** A multipart/form-data request: its text fields (validated as `body`) and the field that carries files. */
export interface FormContract<F extends z.ZodType = z.ZodType> {
  fields: F;
  /** Schema of the whole form as the OpenAPI document shows it (the fields and the file parts). */
  document: z.ZodType;
  file: string;
}

export interface RouteContract {
  /** The name of the route: its handler's export in functions/http and its OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** API Gateway route path: `{name}` for one path parameter. */
  route: string;
  /** The endpoint group (a handler module of functions/http, an OpenAPI tag). */
  group: string;
  summary: string;
  description?: string;
  path?: z.ZodType;
  query?: z.ZodType;
  /** A JSON body (`Content-Type: application/json`). */
  body?: z.ZodType;
  /** A multipart/form-data body instead of JSON. */
  form?: FormContract;
  /** Success answers by status; a server-sent event route answers `text/event-stream` (see `stream`). */
  responses: { [status: number]: Answer };
  /** The route answers server-sent events: each frame's `data:` line holds this schema's JSON. */
  stream?: boolean;
  /**
   * A JSON route that answers server-sent events instead when the request asks (chat's `stream: true`):
   * each frame's `data:` line holds this schema's JSON.
   */
  streamSchema?: z.ZodType;
  /** Error answers the route itself gives, by status (the stack's 413, 415, 422 and 500 are added for it). */
  errors: { [status: number]: Answer };
}

/** Keeps a contract's literal types (statuses, schemas) for the handler's typing. */
export function route<const C extends RouteContract>(contract: C): C {
  return contract;
}
