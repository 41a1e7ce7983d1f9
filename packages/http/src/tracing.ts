/** The span of each HTTP request (document 2, "Telemetry"): under its tenant, when the request names one. */
import { telemetry } from '@tessera/telemetry';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HttpResponse } from './responses';

const FULL_ID = /^[A-Za-z0-9_]+:[A-Za-z0-9_]+$/;
const BARE_ID = /^[A-Za-z0-9_]+$/;

/** The canonical tenant id of a request's `tenant_id` (with `org_id` for a bare one), or null. */
export function canonicalTenant(tenantId: unknown, orgId?: unknown): string | null {
  if (typeof tenantId !== 'string') return null;
  if (FULL_ID.test(tenantId)) return tenantId;
  if (!BARE_ID.test(tenantId)) return null;
  const org = typeof orgId === 'string' && BARE_ID.test(orgId) ? orgId : tenantId;
  return `${org}:${tenantId}`;
}

const field = (source: unknown, name: string): unknown =>
  typeof source === 'object' && source !== null ? (source as Record<string, unknown>)[name] : undefined;

/** The tenant a request names: in its path, its query, its JSON body or its form; null when none. */
export function requestTenant(parts: { path?: unknown; query?: unknown; body?: unknown }): string | null {
  for (const source of [parts.path, parts.query, parts.body]) {
    for (const name of ['tenant_full_id', 'tenant_id', 'tenant']) {
      const tenant = canonicalTenant(field(source, name), field(source, 'org_id'));
      if (tenant) return tenant;
    }
  }
  return null;
}

/**
 * Runs the request inside its span; `serve` answers (errors included) and the span carries its status. The
 * span started when the request arrived, before its tenant was known.
 */
export function traceRequest(
  event: APIGatewayProxyEventV2,
  tenantId: string | null,
  startTime: number,
  serve: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const method = event.requestContext?.http?.method ?? 'GET';
  const route = event.routeKey?.split(' ')[1] ?? event.rawPath;
  return telemetry().span(
    tenantId,
    `${method} ${route}`,
    {
      kind: 'server',
      startTime,
      attributes: { 'http.request.method': method, 'http.route': route },
    },
    async (scope) => {
      const response = await serve();
      scope.set({ 'http.response.status_code': response.statusCode });
      scope.detail({ 'url.path': event.rawPath, 'user_agent.original': event.headers?.['user-agent'] ?? '' });
      scope.verbose({ 'url.query': event.rawQueryString ?? '' });
      if (response.statusCode >= 500) scope.fail(`answered ${response.statusCode}`);
      return response;
    },
  );
}
