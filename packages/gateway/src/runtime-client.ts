/**
 * The gateway's calls to the runtime. Dispatch degrades a dead, hung or non-JSON runtime to
 * `{status: 'unavailable'|'warming'|'error'}` (document 3, "Errors"); admin (CRUD) calls normalize a non-2xx
 * answer to `{status: 'error', status_code, message}`.
 */

export type Dispatched =
  | { status: 'ok'; result: Record<string, unknown> }
  | { status: 'unavailable' | 'warming' }
  | { status: 'error'; status_code?: number; message: string };

export type Crud =
  | { status: 'ok'; body: unknown }
  | { status: 'unavailable' | 'warming' }
  | { status: 'error'; status_code: number; message: string };

export interface RuntimeTimeouts {
  /** How long an agent's answer may take (interactive, shorter than an event stream's idle timeout). */
  dispatchMs: number;
  /** Every other call's answer. */
  readMs: number;
}

export const DEFAULT_TIMEOUTS: RuntimeTimeouts = { dispatchMs: 120_000, readMs: 30_000 };

const REFUSED = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

/** What a failed fetch means: nobody listens (unavailable), or it did not answer in time (warming). */
function failureOf(error: unknown): 'unavailable' | 'warming' {
  const err = error as { name?: string; cause?: { code?: string; name?: string } };
  if (err.name === 'TimeoutError' || err.cause?.name === 'ConnectTimeoutError') return 'warming';
  if (err.cause?.code && REFUSED.has(err.cause.code)) return 'unavailable';
  return 'unavailable';
}

function messageOf(body: unknown, text: string): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (detail && typeof detail === 'object' && 'message' in detail) return String(detail.message);
  if (Array.isArray(detail)) {
    return detail.map((issue) => (issue as { msg?: string }).msg ?? JSON.stringify(issue)).join('; ');
  }
  return text.slice(0, 300);
}

export class RuntimeClient {
  constructor(
    readonly baseUrl: string,
    private readonly timeouts: RuntimeTimeouts = DEFAULT_TIMEOUTS,
  ) {}

  private async call(method: string, path: string, body: unknown, timeoutMs: number) {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown;
    let json = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      json = false;
    }
    return { status: response.status, parsed, json, text };
  }

  /** `POST /agents/{name}/process` for the tenant; `context` adds to the tenant id. */
  async dispatch(
    agent: string,
    query: string,
    tenantId: string,
    context: Record<string, unknown> = {},
  ): Promise<Dispatched & { code?: string }> {
    let answer: Awaited<ReturnType<RuntimeClient['call']>>;
    try {
      answer = await this.call(
        'POST',
        `/agents/${encodeURIComponent(agent)}/process`,
        { agent_name: agent, query, context: { ...context, tenant_id: tenantId } },
        this.timeouts.dispatchMs,
      );
    } catch (error) {
      return { status: failureOf(error) };
    }
    // Not JSON (a proxy's error page, a half-started process): no answer to tell.
    if (!answer.json) return { status: 'error', message: 'The runtime answered something other than JSON' };
    if (answer.status >= 200 && answer.status < 300) {
      const body = answer.parsed as { result?: unknown; status?: string; message?: string };
      if (body?.status === 'cancelled')
        return { status: 'error', message: String(body.message ?? 'cancelled') };
      return { status: 'ok', result: (body?.result ?? {}) as Record<string, unknown> };
    }
    const detail = (answer.parsed as { detail?: { service?: string; error?: string } })?.detail;
    return {
      status: 'error',
      status_code: answer.status,
      message: messageOf(answer.parsed, answer.text),
      code: typeof detail === 'object' && detail ? (detail.service ?? detail.error) : undefined,
    };
  }

  /** An admin call: its JSON body, or the normalized failure. */
  async crud(method: string, path: string, body?: unknown): Promise<Crud> {
    let answer: Awaited<ReturnType<RuntimeClient['call']>>;
    try {
      answer = await this.call(method, path, body, this.timeouts.readMs);
    } catch (error) {
      return { status: failureOf(error) };
    }
    if (answer.status >= 200 && answer.status < 300 && answer.json)
      return { status: 'ok', body: answer.parsed };
    if (!answer.json) {
      return { status: 'error', status_code: 502, message: 'The runtime answered something other than JSON' };
    }
    // Messaging's own answers carry a `status` the caller reads (`invalid_token`, `unavailable`).
    return { status: 'error', status_code: answer.status, message: messageOf(answer.parsed, answer.text) };
  }

  /** The user's tenant: a tenant id, null (unregistered), or the runtime's failure. */
  async resolve(platform: string, userId: string): Promise<{ tenant: string | null } | { status: string }> {
    const answer = await this.crud(
      'GET',
      `/admin/messaging/resolve?platform=${encodeURIComponent(platform)}&external_user_id=${encodeURIComponent(userId)}`,
    );
    if (answer.status !== 'ok') return { status: answer.status === 'error' ? 'unavailable' : answer.status };
    const body = answer.body as { status?: string; tenant_id?: string | null };
    return body.status === 'ok' ? { tenant: body.tenant_id ?? null } : { status: 'unavailable' };
  }

  /**
   * Registers the user with a token: `registered` (with the tenant), `invalid_token`, `unavailable` (the
   * runtime's store did not answer: the token stays claimed for the user), or the runtime's own failure:
   * `unreachable` (nobody answered), `warming` (no answer in time) or `error` (an answer of another kind).
   */
  async register(
    platform: string,
    userId: string,
    token: string,
  ): Promise<
    | { status: 'registered'; tenant_id: string }
    | { status: 'invalid_token' | 'unavailable' | 'unreachable' | 'warming' | 'error' }
  > {
    let answer: Awaited<ReturnType<RuntimeClient['call']>>;
    try {
      answer = await this.call(
        'POST',
        '/admin/messaging/register',
        { platform, external_user_id: userId, token },
        this.timeouts.readMs,
      );
    } catch (error) {
      return { status: failureOf(error) === 'warming' ? 'warming' : 'unreachable' };
    }
    const body = answer.parsed as { status?: string; tenant_id?: string } | undefined;
    if (answer.status === 200 && body?.status === 'registered' && body.tenant_id) {
      return { status: 'registered', tenant_id: body.tenant_id };
    }
    // A malformed token is refused by validation (422): to the user it is as unknown as any other.
    if (answer.status === 404 || answer.status === 422) return { status: 'invalid_token' };
    if (answer.status === 503 && body?.status === 'unavailable') return { status: 'unavailable' };
    return { status: 'error' };
  }

  /** The queued messages of the platform; each is the caller's to send (the drain cleared it). */
  async drain(platform = 'telegram'): Promise<unknown[] | undefined> {
    const answer = await this.crud(
      'GET',
      `/admin/messaging/outbound/drain?platform=${encodeURIComponent(platform)}`,
    );
    return answer.status === 'ok' && Array.isArray(answer.body) ? answer.body : undefined;
  }
}
