/** Where a request reached the runtime: the base URL its agents are served at in the unified runtime. */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** The runtime's base URL as the request reached it (API Gateway's domain, or the local runtime's host). */
export function requestBaseUrl(event: APIGatewayProxyEventV2): string {
  const host = event.headers?.host ?? event.requestContext.domainName;
  const protocol = event.headers?.['x-forwarded-proto'] ?? 'http';
  return `${protocol}://${host}`;
}

/** Aborted `marginMs` before the function's time is up, so a run cancelled then can still answer. */
export function requestDeadline(context: Context | undefined, marginMs: number): AbortSignal | undefined {
  return context
    ? AbortSignal.timeout(Math.max(1, context.getRemainingTimeInMillis() - marginMs))
    : undefined;
}
