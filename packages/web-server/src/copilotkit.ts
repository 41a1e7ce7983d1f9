/**
 * `/ui-api/copilotkit/*` (document 3, "Web client server"): the chat runtime, speaking CopilotKit's v2
 * runtime protocol (`GET /info`, `POST /agent/{agent}/run` with an AG-UI `RunAgentInput`, answered with the
 * run's AG-UI events over server-sent events). Each run goes to the runtime's `/ag-ui/{agent}` with the
 * harness key of the tenant that `forwardedProps.tenant_id` names; the runtime checks that the key's tenant is
 * that one. A key the runtime refuses (expired or revoked under us) is replaced and the run sent once more,
 * so a browser never sees a key's end.
 *
 * `@copilotkit/runtime` itself is not loaded: the agents run in the runtime, so the library would only add
 * its 6 s cold import and ~380 MB to a server that forwards, and nothing of it (its telemetry included)
 * runs here.
 */
import { log } from '@tessera/core';
import type { Context, Hono } from 'hono';
import { forwardedResponseHeaders, passThrough, runtimeUnavailable } from './forward';
import { HarnessKeyError, type HarnessKeys } from './harness-keys';
import { type RuntimeTarget, runtimeTarget } from './targets';

/** The CopilotKit runtime protocol version these routes answer as. */
export const COPILOTKIT_PROTOCOL = '1.75.0';
/** A run's body (messages of a thread, its state) at most: 1 MiB. */
export const MAX_RUN_BODY = 1024 * 1024;
const AGENT_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export interface CopilotKitOptions {
  runtime: string | RuntimeTarget;
  harnessKeys?: HarnessKeys;
  fetch?: typeof fetch;
}

const problem = (status: number, detail: unknown) => Response.json({ detail }, { status });

interface RegistryAgent {
  name: string;
  enabled?: boolean;
  available?: boolean;
  capabilities?: string[];
}

/** Reads at most `limit` bytes of the request body; undefined when it is longer. */
async function boundedText(request: Request, limit: number): Promise<string | undefined> {
  if (!request.body) return '';
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The tenant a run is for: `forwardedProps.tenant_id`, a non-empty string. */
function runTenant(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const props = (body as { forwardedProps?: unknown }).forwardedProps;
  if (!props || typeof props !== 'object') return undefined;
  const tenant = (props as { tenant_id?: unknown }).tenant_id;
  return typeof tenant === 'string' && tenant.trim() !== '' && tenant.length <= 200 ? tenant : undefined;
}

export function mountCopilotKit<E extends object>(app: Hono<E>, prefix: string, options: CopilotKitOptions) {
  const target = typeof options.runtime === 'string' ? runtimeTarget(options.runtime) : options.runtime;
  const fetchImpl = options.fetch ?? fetch;

  // The agents a CopilotKit client may run: the registry's enabled, implemented ones.
  app.get(`${prefix}/info`, async (c: Context) => {
    let answer: Response;
    try {
      answer = await fetchImpl(`${target('GET', '/agents')}/agents`, { signal: c.req.raw.signal });
    } catch {
      return runtimeUnavailable();
    }
    if (!answer.ok) {
      await answer.body?.cancel();
      return runtimeUnavailable();
    }
    const { agents = [] } = (await answer.json()) as { agents?: RegistryAgent[] };
    const runnable = agents.filter((agent) => agent.enabled !== false && agent.available !== false);
    return c.json({
      version: COPILOTKIT_PROTOCOL,
      agents: Object.fromEntries(
        runnable.map((agent) => [
          agent.name,
          { name: agent.name, className: 'HttpAgent', description: (agent.capabilities ?? []).join(', ') },
        ]),
      ),
      audioFileTranscriptionEnabled: false,
    });
  });

  app.post(`${prefix}/agent/:agent/run`, async (c: Context) => {
    const agent = c.req.param('agent') ?? '';
    if (!AGENT_NAME.test(agent)) return problem(404, `Agent '${agent.slice(0, 100)}' not found`);
    if (!options.harnessKeys) return problem(503, 'This web server runs no chats (it holds no harness keys)');
    const text = await boundedText(c.req.raw, MAX_RUN_BODY);
    if (text === undefined) {
      // The rest of the body is not read: the connection cannot carry another request.
      return Response.json(
        { detail: `A run's body is at most ${MAX_RUN_BODY} bytes` },
        { status: 413, headers: { connection: 'close' } },
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return problem(422, [
        {
          type: 'json_invalid',
          loc: ['body'],
          msg: 'The body is not JSON (an AG-UI RunAgentInput)',
          input: {},
        },
      ]);
    }
    const tenant = runTenant(body);
    if (!tenant) {
      return problem(422, [
        {
          type: 'missing',
          loc: ['body', 'forwardedProps', 'tenant_id'],
          msg: 'The tenant the run is for is required',
          input: {},
        },
      ]);
    }
    const keys = options.harnessKeys;
    const send = async (key: string) =>
      fetchImpl(`${target('POST', `/ag-ui/${agent}`)}/ag-ui/${agent}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'accept-encoding': 'identity',
          authorization: `Bearer ${key}`,
        },
        body: text,
        // The browser's disconnect ends the run's request, and with it the agent's stream.
        signal: c.req.raw.signal,
      });
    let upstream: Response | undefined;
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const key = await keys.keyFor(tenant);
        upstream = await send(key);
        if (upstream.status !== 401) break;
        // Expired or revoked under us: forget it; the next attempt runs with a new one.
        await upstream.body?.cancel();
        keys.invalidate(tenant, key);
        log.info('harness key refused; minting a new one', { tenant });
      }
    } catch (error) {
      if (error instanceof HarnessKeyError) {
        return error.status === 502 ? runtimeUnavailable() : problem(error.status, error.detail);
      }
      return runtimeUnavailable();
    }
    const answer = upstream!;
    return new Response(answer.body && passThrough(answer.body, c.req.raw.signal), {
      status: answer.status,
      statusText: answer.statusText,
      headers: forwardedResponseHeaders(answer.headers),
    });
  });

  app.all(`${prefix}/*`, () => problem(404, 'Not Found'));
}
