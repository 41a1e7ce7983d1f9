/**
 * `/ui-api/copilotkit/*` against a loopback runtime speaking the harness key routes and `/ag-ui/{agent}`:
 * runs go to the agent with the tenant's key, stream through as the runtime writes them, survive a key the
 * runtime stops taking, and end upstream when the browser goes away; and the read-only jobs route.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebServer } from '../src/server';
import {
  closedPort,
  type FakeRuntime,
  json,
  loopbackWebServer,
  type Seen,
  startFakeRuntime,
} from './fake-runtime';

interface AgUiRuntime extends FakeRuntime {
  /** Keys the runtime takes (a test may drop one: an expiry or a revoke the web server did not see). */
  live: Set<string>;
  mints: string[];
  /** Resolves the held frames of a run that `hold` keeps open. */
  release: () => void;
}

const frame = (id: number, event: Record<string, unknown>) => `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;

async function agUiRuntime(options: { hold?: boolean } = {}): Promise<AgUiRuntime> {
  const live = new Set<string>();
  const mints: string[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let next = 0;
  const runtime = await startFakeRuntime(async (seen: Seen, res: ServerResponse) => {
    if (seen.method === 'POST' && seen.url === '/admin/harness/keys') {
      const body = JSON.parse(seen.body.toString()) as { tenant_id: string; ttl: number };
      mints.push(body.tenant_id);
      if (body.tenant_id === 'nobody')
        return json(res, 404, { detail: `Tenant '${body.tenant_id}' not registered.` });
      const key = `secret-${++next}`;
      live.add(key);
      return json(res, 201, {
        key_id: `hk_${next}`,
        key,
        tenant_id: body.tenant_id,
        expires_at: new Date(Date.now() + body.ttl * 1000).toISOString(),
      });
    }
    if (seen.method === 'DELETE' && seen.url.startsWith('/admin/harness/keys/'))
      return json(res, 200, { status: 'revoked' });
    if (seen.method === 'GET' && seen.url === '/agents') {
      return json(res, 200, {
        agents: [
          { name: 'search_agent', enabled: true, available: true, capabilities: ['search'] },
          { name: 'coding_agent', enabled: true, available: true, capabilities: ['code'] },
          { name: 'video_agent', enabled: false, available: true, capabilities: ['video'] },
        ],
        count: 3,
      });
    }
    if (seen.method === 'GET' && seen.url.startsWith('/admin/tenant/')) return json(res, 200, { jobs: [] });
    const run = /^\/ag-ui\/([a-z_]+)$/.exec(seen.url);
    if (seen.method === 'POST' && run) {
      const key = /^Bearer (.+)$/.exec(String(seen.headers.authorization ?? ''))?.[1];
      if (!key || !live.has(key)) return json(res, 401, { detail: 'Invalid or expired harness key' });
      const input = JSON.parse(seen.body.toString()) as { threadId: string; runId: string };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame(0, { type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId }));
      if (options.hold) await held;
      res.write(frame(1, { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }));
      res.write(frame(2, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: `agent ${run[1]}` }));
      res.write(frame(3, { type: 'TEXT_MESSAGE_END', messageId: 'm1' }));
      res.end(frame(4, { type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId }));
      return;
    }
    json(res, 404, { detail: 'Not Found' });
  });
  return Object.assign(runtime, {
    live,
    mints,
    get release() {
      return release;
    },
  }) as AgUiRuntime;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setUp(options: { hold?: boolean } = {}): Promise<{ runtime: AgUiRuntime; web: WebServer }> {
  const runtime = await agUiRuntime(options);
  cleanup.push(() => runtime.close());
  const web = await loopbackWebServer(runtime.url);
  cleanup.push(() => web.stop());
  return { runtime, web };
}

const runInput = (tenant: string | undefined, text = 'radium') => ({
  threadId: 'thread_1',
  runId: 'run_1',
  state: {},
  messages: [{ id: 'u1', role: 'user', content: text }],
  tools: [],
  context: [],
  forwardedProps: tenant === undefined ? {} : { tenant_id: tenant },
});

const run = (web: WebServer, agent: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${web.url}/ui-api/copilotkit/agent/${agent}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer from-the-browser' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });

const eventTypes = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => (JSON.parse(block.split('\n')[1]!.slice('data: '.length)) as { type: string }).type);

describe('/ui-api/copilotkit', () => {
  it("sends a run to the runtime's /ag-ui/{agent} with the tenant's harness key, never the browser's", async () => {
    const { runtime, web } = await setUp();
    const answer = await run(web, 'search_agent', runInput('acme:prod'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(eventTypes(await answer.text())).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    const sent = runtime.seen.find((seen) => seen.url === '/ag-ui/search_agent')!;
    expect(sent.headers.authorization).toBe('Bearer secret-1');
    expect(JSON.parse(sent.body.toString())).toEqual(runInput('acme:prod'));
    // A second run of the tenant takes the same key; another tenant gets its own.
    await (await run(web, 'coding_agent', runInput('acme:prod'))).text();
    await (await run(web, 'search_agent', runInput('globex:main'))).text();
    expect(runtime.mints).toEqual(['acme:prod', 'globex:main']);
    const keys = runtime.seen
      .filter((seen) => seen.url.startsWith('/ag-ui/'))
      .map((s) => s.headers.authorization);
    expect(keys).toEqual(['Bearer secret-1', 'Bearer secret-1', 'Bearer secret-2']);
  });

  it('streams each event as the runtime writes it, and ends the upstream run when the browser goes away', async () => {
    const { runtime, web } = await setUp({ hold: true });
    const browser = new AbortController();
    const answer = await run(web, 'search_agent', runInput('acme:prod'), { signal: browser.signal });
    const reader = answer.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // RUN_STARTED arrived while the runtime still holds the rest of the run.
    expect(eventTypes(first)).toEqual(['RUN_STARTED']);
    browser.abort();
    const upstream = runtime.seen.find((seen) => seen.url === '/ag-ui/search_agent')!;
    expect(await upstream.closed).toBe(true);
    runtime.release();
  });

  it('replaces a key the runtime no longer takes and runs again, transparently', async () => {
    const { runtime, web } = await setUp();
    await (await run(web, 'search_agent', runInput('acme:prod'))).text();
    // The key expires (or is revoked) without the web server knowing.
    runtime.live.clear();
    const answer = await run(web, 'search_agent', runInput('acme:prod'));
    expect(answer.status).toBe(200);
    expect(eventTypes(await answer.text())).toContain('RUN_FINISHED');
    expect(runtime.mints).toEqual(['acme:prod', 'acme:prod']);
    const keys = runtime.seen
      .filter((seen) => seen.url.startsWith('/ag-ui/'))
      .map((s) => s.headers.authorization);
    expect(keys).toEqual(['Bearer secret-1', 'Bearer secret-1', 'Bearer secret-2']);
  });

  it('refuses bad runs before the runtime sees them, and says when the runtime does not answer', async () => {
    const { runtime, web } = await setUp();
    const noTenant = await run(web, 'search_agent', runInput(undefined));
    expect(noTenant.status).toBe(422);
    expect(((await noTenant.json()) as { detail: { loc: unknown }[] }).detail[0]!.loc).toEqual([
      'body',
      'forwardedProps',
      'tenant_id',
    ]);
    const notJson = await run(web, 'search_agent', '{"threadId":');
    expect(notJson.status).toBe(422);
    const tooLarge = await run(web, 'search_agent', runInput('acme:prod', 'x'.repeat(1024 * 1024 + 1)));
    expect(tooLarge.status).toBe(413);
    for (const agent of ['..%2Fadmin', 'Search', '%2e%2e']) {
      expect((await run(web, agent, runInput('acme:prod'))).status).toBe(404);
    }
    expect(runtime.seen.some((seen) => seen.url.startsWith('/ag-ui/'))).toBe(false);
    // A tenant the runtime does not know: its refusal of the mint, as it said it.
    const unknown = await run(web, 'search_agent', runInput('nobody'));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "Tenant 'nobody' not registered." });
    for (const path of [
      'agent/search_agent',
      'agent/search_agent/connect',
      'graphql',
      'admin/harness/keys',
    ]) {
      expect((await fetch(`${web.url}/ui-api/copilotkit/${path}`, { method: 'POST' })).status).toBe(404);
    }

    const down = await loopbackWebServer(await closedPort());
    cleanup.push(() => down.stop());
    const unavailable = await run(down, 'search_agent', runInput('acme:prod'));
    expect(unavailable.status).toBe(502);
    expect(await unavailable.json()).toEqual({ detail: 'Runtime unavailable' });
    expect((await fetch(`${down.url}/ui-api/copilotkit/info`)).status).toBe(502);
  });

  it("lists the registry's runnable agents at /info", async () => {
    const { web } = await setUp();
    const info = (await (await fetch(`${web.url}/ui-api/copilotkit/info`)).json()) as {
      agents: Record<string, { name: string }>;
    };
    expect(Object.keys(info.agents)).toEqual(['search_agent', 'coding_agent']);
  });
});

describe('/ui-api/jobs', () => {
  it("reads a tenant's jobs, and nothing else of the jobs' admin routes is reachable", async () => {
    const { runtime, web } = await setUp();
    const answer = await fetch(`${web.url}/ui-api/jobs?tenant_id=${encodeURIComponent('acme:prod')}`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ jobs: [] });
    expect(runtime.seen.at(-1)!.url).toBe('/admin/tenant/acme%3Aprod/jobs');
    expect((await fetch(`${web.url}/ui-api/jobs`)).status).toBe(422);
    const before = runtime.seen.length;
    for (const [method, path] of [
      ['POST', '/ui-api/jobs?tenant_id=acme'],
      ['DELETE', '/ui-api/jobs?tenant_id=acme'],
      ['GET', '/ui-api/runtime/admin/tenant/acme/jobs'],
      ['POST', '/ui-api/runtime/admin/tenant/acme/jobs'],
    ] as const) {
      expect((await fetch(`${web.url}${path}`, { method })).status, `${method} ${path}`).toBe(404);
    }
    // A tenant id cannot walk out of its path segment.
    await (
      await fetch(`${web.url}/ui-api/jobs?tenant_id=${encodeURIComponent('../../harness/keys')}`)
    ).text();
    expect(runtime.seen.at(-1)!.url).toBe('/admin/tenant/..%2F..%2Fharness%2Fkeys/jobs');
    expect(runtime.seen.length).toBe(before + 1);
  });
});
