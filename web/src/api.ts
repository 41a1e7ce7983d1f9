/**
 * The client's calls to the web server, typed by @tessera/api's schemas (types only: no schema code reaches
 * the bundle). Every failure becomes an `ApiError` whose message is the answer's `detail`, and a 502
 * `Runtime unavailable` or a network failure tells the runtime-status store.
 */
import type { Agents, Chat, Graph, Health, Ingestion, Jobs, Organizations, Search, Wiki } from '@tessera/api';
import { reportRuntime } from './runtime-status';

export const RUNTIME = '/ui-api/runtime';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The readable message of an error body in any of the API's shapes (plain, business rule, 422, 503). */
export function detailMessage(body: unknown, status: number): string {
  const detail = body && typeof body === 'object' && 'detail' in body ? body.detail : undefined;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((issue: { loc?: unknown[]; msg?: string }) => {
        const where = Array.isArray(issue.loc) ? issue.loc.filter((part) => part !== 'body').join('.') : '';
        return where ? `${where}: ${issue.msg ?? 'invalid'}` : (issue.msg ?? 'invalid');
      })
      .join('; ');
  }
  if (detail && typeof detail === 'object') {
    const { message, errors } = detail as { message?: string; errors?: unknown };
    if (message && Array.isArray(errors) && errors.length > 0) return `${message}: ${errors.join('; ')}`;
    if (message) return message;
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 300);
  return `The server answered ${status}`;
}

async function read(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

export async function request<T>(path: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<T> {
  const { timeoutMs = 30_000, ...rest } = init;
  const signal = rest.signal
    ? AbortSignal.any([rest.signal, AbortSignal.timeout(timeoutMs)])
    : AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(path, { ...rest, signal });
  } catch (error) {
    if (rest.signal?.aborted) throw error;
    reportRuntime(false);
    throw new ApiError(0, 'The web server did not answer. Is it running?');
  }
  const body = await read(response);
  if (response.status === 502 && detailMessage(body, 502) === 'Runtime unavailable') {
    reportRuntime(false);
    throw new ApiError(502, 'The runtime is unavailable. Retrying when it is back.');
  }
  if (!response.ok) throw new ApiError(response.status, detailMessage(body, response.status));
  reportRuntime(true);
  return body as T;
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const q = encodeURIComponent;

export const api = {
  health: (signal?: AbortSignal) =>
    request<Health.HealthReport>(`${RUNTIME}/health`, { signal, timeoutMs: 5000 }),
  organizations: () => request<Organizations.OrganizationList>(`${RUNTIME}/admin/organizations`),
  tenants: (orgId: string) =>
    request<Organizations.OrganizationTenants>(`${RUNTIME}/admin/organizations/${q(orgId)}/tenants`),
  profiles: (tenantId: string) =>
    request<Search.ProfileList>(`${RUNTIME}/search/profiles?tenant_id=${q(tenantId)}`),
  search: (body: Search.SearchRequest, signal?: AbortSignal) =>
    request<Search.SearchResponse>(`${RUNTIME}/search/`, { ...json(body), signal }),
  presign: (body: Ingestion.PresignRequest) =>
    request<Ingestion.Presigned>(`${RUNTIME}/ingestion/uploads`, json(body)),
  jobStatus: (jobId: string) => request<Ingestion.JobStatus>(`${RUNTIME}/ingestion/${q(jobId)}/events`),
  cancelJob: (jobId: string) =>
    request<{ message: string }>(`${RUNTIME}/events/ingestion/${q(jobId)}/cancel`, json({})),
  graphStats: (tenantId: string) =>
    request<Graph.GraphStats>(`${RUNTIME}/graph/stats?tenant_id=${q(tenantId)}`),
  graphSearch: (tenantId: string, text: string, topK = 20) =>
    request<Graph.NodeSearch>(`${RUNTIME}/graph/search?tenant_id=${q(tenantId)}&q=${q(text)}&top_k=${topK}`),
  neighbors: (tenantId: string, node: string) =>
    request<Graph.Neighbors>(`${RUNTIME}/graph/neighbors?tenant_id=${q(tenantId)}&node=${q(node)}&depth=1`),
  path: (tenantId: string, source: string, target: string, maxDepth = 6) =>
    request<Graph.GraphPath>(
      `${RUNTIME}/graph/path?tenant_id=${q(tenantId)}&source=${q(source)}&target=${q(target)}&max_depth=${maxDepth}`,
    ),
  agents: () => request<Agents.AgentList>('/ui-api/agents'),
  conversations: (tenantId: string) =>
    request<{ threads: Chat.ConversationThread[] }>(`${RUNTIME}/conversations?tenant_id=${q(tenantId)}`),
  conversation: (tenantId: string, contextId: string) =>
    request<Chat.Conversation>(`${RUNTIME}/conversations/${q(contextId)}?tenant_id=${q(tenantId)}`),
  wikiIndex: (tenantId: string) => request<Wiki.WikiIndex>(`${RUNTIME}/wiki/index?tenant_id=${q(tenantId)}`),
  wikiPage: (tenantId: string, slug: string) =>
    request<Wiki.WikiPage>(`${RUNTIME}/wiki/topic/${q(slug)}?tenant_id=${q(tenantId)}`),
  wikiSearch: (tenantId: string, query: string, signal?: AbortSignal) =>
    request<Wiki.SearchResult>(`${RUNTIME}/wiki/search`, {
      ...json({ tenant_id: tenantId, query, top_k: 10 }),
      signal,
    }),
  jobs: (tenantId: string) =>
    request<{ jobs: Jobs.Job[]; total_count: number }>(`/ui-api/jobs?tenant_id=${q(tenantId)}`),
};

/** Where a chat run goes: the web server's chat runtime, which sends it to the runtime's `/ag-ui/{agent}`. */
export const chatRunUrl = (agent: string) => `/ui-api/copilotkit/agent/${q(agent)}/run`;

export const ingestionEventsUrl = (jobId: string, fromOffset?: number) =>
  `${RUNTIME}/events/ingestion/${q(jobId)}${fromOffset === undefined ? '' : `?from_offset=${fromOffset}`}`;
export const uploadUrl = `${RUNTIME}/ingestion/upload`;
