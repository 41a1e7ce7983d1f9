/**
 * The request and response schemas of every HTTP route, one namespace per endpoint group (the handler
 * modules of functions/http). Depends on zod only, so browsers, the CLI and agents import it as the server
 * does; `@tessera/api/openapi` builds the OpenAPI document from it.
 */
export * as Agents from './agents';
export * as Chat from './chat';
export * as Config from './config';
export type { Answer, FormContract, HttpMethod, RouteContract } from './contract';
export { route } from './contract';
export {
  BusinessRuleError,
  PlainError,
  ServiceUnavailable,
  TaskEventsUnavailable,
  TaskEventsUnavailableDetail,
  TenantDeleteIncomplete,
  ValidationErrorBody,
  ValidationIssue,
} from './errors';
export * as Events from './events';
export * as Graph from './graph';
export * as Health from './health';
export { Actor, MediaType, NodeRef, ProfileName, TaskId } from './ids';
export * as Ingestion from './ingestion';
export * as Jobs from './jobs';
export * as Knowledge from './knowledge';
export * as Memories from './memories';
export * as OpenApi from './openapi-route';
export * as Organizations from './organizations';
export { queryBoolean, queryInt } from './params';
export * as Profiles from './profiles';
export * as Provisioning from './provisioning';
export { contractOf, contracts } from './routes';
export * as Schemas from './schemas';
export * as Search from './search';
export * as Tenants from './tenants';
export * as Wiki from './wiki';
