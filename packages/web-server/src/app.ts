/**
 * The web client server (document 3, "Web client server"): `/healthz`, the runtime's agent registry, the
 * allowlisted runtime routes under `/ui-api/runtime/*`, and the built client for everything else. It calls
 * the runtime directly, never through an ingress. Beside the allowlist: the tenant's jobs (read-only) and the
 * chat runtime `/ui-api/copilotkit/*`, whose runs go to the runtime's `/ag-ui/{agent}` with harness keys.
 */
import { log } from '@tessera/core';
import { Hono } from 'hono';
import { isForwarded } from './allowlist';
import { type ClientEnv, serveClient } from './client';
import { mountCopilotKit } from './copilotkit';
import { createForwarder } from './forward';
import type { HarnessKeys } from './harness-keys';
import { runtimeTarget } from './targets';

export interface WebAppOptions {
  /** The runtime's base URL (`TESSERA_RUNTIME_URL`). */
  runtimeUrl: string;
  /** Runtime routes answered at their own base URL (`TESSERA_RUNTIME_STREAM_URLS`). */
  streamUrls?: Record<string, string>;
  /** The built client; without it the server answers the API routes only. */
  clientDir?: string;
  /** Tenants' harness keys, for the chat runs of `/ui-api/copilotkit/*`. */
  harnessKeys?: HarnessKeys;
  fetch?: typeof fetch;
}

const RUNTIME_PREFIX = '/ui-api/runtime';

export function createWebApp(options: WebAppOptions): Hono<ClientEnv> {
  const app = new Hono<ClientEnv>();
  const runtime = runtimeTarget(options.runtimeUrl, options.streamUrls);
  const forward = createForwarder(runtime, options.fetch);
  const notFound = () => Response.json({ detail: 'Not Found' }, { status: 404 });

  // Liveness and readiness of this server alone: ok whatever the runtime's state.
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  // The runtime's agent registry, `{agents: [...]}` as `GET /agents` answers it.
  app.get('/ui-api/agents', (c) => forward(c.req.raw, '/agents'));

  // A tenant's scheduled jobs, read-only: the one admin route of the jobs the client shows. It is apart from
  // `/ui-api/runtime/*`, whose list is exactly clarifications' (creating or deleting a job is not the
  // browser's to do: the runtime's admin surface has no authentication).
  app.get('/ui-api/jobs', (c) => {
    const tenant = c.req.query('tenant_id');
    if (!tenant || tenant.length > 200) {
      return c.json(
        { detail: [{ type: 'missing', loc: ['query', 'tenant_id'], msg: 'Field required', input: {} }] },
        422,
      );
    }
    return forward(c.req.raw, `/admin/tenant/${encodeURIComponent(tenant)}/jobs`);
  });

  mountCopilotKit(app, '/ui-api/copilotkit', {
    runtime,
    harnessKeys: options.harnessKeys,
    fetch: options.fetch,
  });

  app.all(`${RUNTIME_PREFIX}/*`, (c) => {
    const url = new URL(c.req.url);
    const runtimePath = url.pathname.slice(RUNTIME_PREFIX.length);
    if (!isForwarded(c.req.method, runtimePath)) return notFound();
    return forward(c.req.raw, `${runtimePath}${url.search}`);
  });

  app.all('/ui-api/*', notFound);
  app.all('/healthz/*', notFound);

  if (options.clientDir) serveClient(app, options.clientDir);
  app.notFound(notFound);
  app.onError((error, c) => {
    log.error('web request failed', { error, path: c.req.path });
    return c.json({ detail: 'Internal Server Error' }, 500);
  });
  return app;
}
