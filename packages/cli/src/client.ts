/** A small fetch client for the runtime's REST endpoints that turns every failure into a one-line CliError. */
import { type CliEnv, cliEnv } from './env';
import { CliError } from './errors';

const DEFAULT_TIMEOUT_MS = 30_000;

export interface ConnectionOptions {
  /** Runtime base URL; falls back to `TESSERA_RUNTIME_URL`, then http://localhost:28000. */
  url?: string;
  /** Tenant id (`org:tenant` or `org`); falls back to `TESSERA_TENANT_ID`. */
  tenant?: string;
}

export interface RuntimeClientOptions {
  baseUrl: string;
  timeoutMs?: number;
}

export class RuntimeClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(options: RuntimeClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** GETs `path` with `query` and returns the parsed JSON body of a 2xx answer. */
  async get(path: string, query: Record<string, string | number>): Promise<unknown> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
    return this.request(url, path, { method: 'GET' });
  }

  /** POSTs a JSON body. */
  async post(path: string, body: unknown, timeoutMs?: number): Promise<unknown> {
    return this.request(
      new URL(`${this.baseUrl}${path}`),
      path,
      { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
      timeoutMs,
    );
  }

  /** POSTs a multipart form (files and fields). */
  async postForm(path: string, form: FormData, timeoutMs?: number): Promise<unknown> {
    return this.request(new URL(`${this.baseUrl}${path}`), path, { method: 'POST', body: form }, timeoutMs);
  }

  private async request(
    url: URL,
    path: string,
    init: RequestInit,
    timeoutMs = this.timeoutMs,
  ): Promise<unknown> {
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        ...init,
        headers: { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) },
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw this.unreachable(error, timeoutMs);
    }
    const body = parseJson(text);
    if (status < 200 || status > 299)
      throw new CliError(`${failureReason(body, text)} (HTTP ${status})`, status);
    if (body === undefined) {
      throw new CliError(
        `The Tessera runtime at ${this.baseUrl} answered ${path} with a body that is not JSON.`,
      );
    }
    return body;
  }

  private unreachable(error: unknown, timeoutMs: number): CliError {
    if (error instanceof Error && error.name === 'TimeoutError') {
      return new CliError(
        `The Tessera runtime at ${this.baseUrl} did not answer within ${timeoutMs / 1000} s.`,
      );
    }
    return new CliError(
      `Cannot reach the Tessera runtime at ${this.baseUrl}: ${networkReason(error)}. Start it with 'npm start' or pass --url.`,
    );
  }
}

/** Resolves the runtime client and the tenant from flags, then settings; fails before any request. */
export function connect(
  options: ConnectionOptions,
  env: CliEnv = cliEnv,
): { client: RuntimeClient; tenant: string } {
  const baseUrl = options.url ?? env.runtimeUrl;
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new CliError(`Invalid --url '${baseUrl}': expected an http(s) URL such as http://localhost:28000.`);
  }
  const tenant = options.tenant ?? env.tenantId;
  if (!tenant) {
    throw new CliError(
      'No tenant given: pass --tenant <id> or set TESSERA_TENANT_ID. ' +
        'Without a tenant yet, register one first with POST /admin/tenants.',
    );
  }
  return { client: new RuntimeClient({ baseUrl }), tenant };
}

/** The reason of an error answer: `detail` as a string, `detail.message`, or the `loc: msg` entries of a 422. */
export function failureReason(body: unknown, text: string): string {
  const detail = isRecord(body) ? body.detail : undefined;
  if (typeof detail === 'string' && detail.trim()) return oneLine(detail);
  if (Array.isArray(detail) && detail.length > 0) {
    return detail
      .map((entry) => {
        if (!isRecord(entry)) return oneLine(String(entry));
        const loc = Array.isArray(entry.loc) ? entry.loc.join('.') : '';
        const msg = oneLine(String(entry.msg ?? JSON.stringify(entry)));
        return loc ? `${loc}: ${msg}` : msg;
      })
      .join('; ');
  }
  if (isRecord(detail) && typeof detail.message === 'string') return oneLine(detail.message);
  if (detail !== undefined && detail !== null) return oneLine(JSON.stringify(detail));
  const snippet = oneLine(text).slice(0, 200);
  return snippet || 'The runtime answered without a reason';
}

function networkReason(error: unknown): string {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError) {
    const first: unknown = cause.errors[0];
    if (first instanceof Error && first.message) return first.message;
  }
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    if (cause.message) return oneLine(cause.message);
    if (typeof code === 'string') return code;
  }
  return error instanceof Error ? oneLine(error.message) : String(error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
