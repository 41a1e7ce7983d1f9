export type { FormSpec, Reply, RouteAnswer, RouteRequest, RouteSpec } from './handler';
export { httpRoute, reply } from './handler';
export type { FormFile, MultipartForm } from './multipart';
export { parseMultipart } from './multipart';
export { requestBaseUrl, requestDeadline } from './origin';
export type { HttpResponse } from './responses';
export {
  errorResponse,
  json,
  MAX_BODY_BYTES,
  methodNotAllowedResponse,
  notFoundResponse,
  payloadTooLargeResponse,
} from './responses';
export type { ModuleRouter, RouteHandler } from './router';
export { moduleRouter } from './router';
export type { SseRequest } from './sse';
export { sseRoute } from './sse';
export type { FrameStream, StreamRequest } from './stream';
export { streamRoute } from './stream';
export { canonicalTenant, requestTenant, traceRequest } from './tracing';
export { issuesFromZod, validate } from './validation';
