/**
 * The web client in a real browser (Debian's Chromium through playwright-core) against `npm start`'s runtime
 * and web server: a user picks a tenant, uploads a Markdown file and watches it complete, searches and opens
 * a hit, expands the graph and finds a path; a job stream that breaks mid-way resumes without duplicates;
 * and the page says when the runtime is down and recovers when it returns. Screenshots go to
 * test/artifacts/web.
 */
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openAIChat, startServer } from '@tessera/testing';
import type { Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, type Browser, launchChromium, screenshot } from './support/browser';
import { call, type RuntimeProcess, spawnRuntime, tempDataDir } from './support/runtime';

const TENANT = 'acme:web';
const MARKDOWN = `# Marie Curie

Marie Curie was born in Warsaw. She discovered radium and polonium with Pierre Curie in Paris.

She won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.
`;

/** A small graph, as `tessera index` or an extractor would write it: a path of three steps among others. */
const GRAPH = {
  tenant_id: TENANT,
  source_doc_id: 'curie.md',
  nodes: [
    { name: 'Marie Curie', description: 'Physicist and chemist', kind: 'entity', label: 'Person' },
    { name: 'Pierre Curie', description: 'Physicist', kind: 'entity', label: 'Person' },
    { name: 'Radium', description: 'Element 88', kind: 'entity', label: 'Substance' },
    { name: 'Periodic Table', description: 'Table of the elements', kind: 'concept', label: 'Concept' },
    { name: 'Warsaw', kind: 'entity', label: 'Location' },
    { name: 'University of Paris', kind: 'entity', label: 'Organization' },
  ],
  edges: [
    ['Pierre Curie', 'married', 'Marie Curie'],
    ['Marie Curie', 'discovered', 'Radium'],
    ['Radium', 'part_of', 'Periodic Table'],
    ['Marie Curie', 'born_in', 'Warsaw'],
    ['Marie Curie', 'worked_at', 'University of Paris'],
    ['Pierre Curie', 'worked_at', 'University of Paris'],
  ].map(([source, relation, target]) => ({
    source,
    relation,
    target,
    evidence_span: `${source} ${relation} ${target}`,
    segment_id: 'chunk_0',
    ts_start: 0,
    ts_end: 0,
    modality: 'text',
  })),
};

let runtime: RuntimeProcess;
let webUrl: string;
let browser: Browser;

/** The URL `npm start` prints for the web client. */
async function webUrlOf(process: RuntimeProcess): Promise<string> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const match = /Tessera web client on (http:\/\/\S+)/.exec(process.output());
    if (match) return match[1]!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`npm start printed no web client URL:\n${process.output()}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function expectAccessible(page: Page, where: string): Promise<void> {
  expect(await accessibilityViolations(page), where).toEqual([]);
}

beforeAll(async () => {
  runtime = await spawnRuntime({ env: { TESSERA_WEB: 'on', PORT: '0' } });
  webUrl = await webUrlOf(runtime);
  expect(
    (
      await call(runtime.url, 'POST', '/admin/tenants', {
        tenant_id: TENANT,
        base_schemas: ['document_text', 'code'],
      })
    ).status,
  ).toBe(201);
  expect((await call(runtime.url, 'POST', '/admin/tenants', { tenant_id: 'globex:main' })).status).toBe(201);
  expect((await call(runtime.url, 'POST', '/graph/upsert', GRAPH)).status).toBe(200);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (runtime) expect(await runtime.stop(), runtime.output().slice(-3000)).toBe(0);
});

describe('web client in Chromium', () => {
  it('lets a user pick a tenant, upload a Markdown file and watch it complete, search and open a hit, and expand the graph', async () => {
    const { page } = browser;
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(webUrl);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Choose a tenant');
    await expect.poll(() => page.locator('.runtime-dot').textContent()).toContain('online');
    await screenshot(page, '01-choose-tenant');
    await expectAccessible(page, 'tenant choice');

    // Two organizations: the user picks one, then its only tenant is chosen.
    await page.getByLabel('Organization').selectOption('acme');
    await expect.poll(() => new URL(page.url()).searchParams.get('tenant')).toBe(TENANT);
    await expect.poll(() => page.getByLabel('Tenant').inputValue()).toBe(TENANT);

    // Upload: the job goes queued → processing → complete, with its events.
    await page.getByRole('link', { name: 'Upload', exact: true }).click();
    await expect
      .poll(() => page.evaluate<string | undefined>('document.activeElement?.textContent'))
      .toBe('Upload');
    await page.getByLabel('Choose files').setInputFiles({
      name: 'curie.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(MARKDOWN),
    });
    const job = page.getByRole('listitem', { name: /^curie\.md: / });
    await expect.poll(() => job.getAttribute('aria-label'), { timeout: 60_000 }).toBe('curie.md: Complete');
    expect(await job.textContent()).toMatch(/Indexed: 1 chunk, \d+ graph nodes?/);
    await job.getByText(/^Events \(\d+\)$/).click();
    const events = await job.locator('.job-log li').allTextContents();
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(new Set(events).size).toBe(events.length);
    await screenshot(page, '02-upload-complete');
    await expectAccessible(page, 'upload');

    // Search with the keyboard, open the hit, close it with Escape.
    await page.getByRole('link', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.getByLabel('Profile').inputValue()).toBe('document_text_semantic');
    await page.getByLabel('Query').fill('radium polonium');
    await page.getByLabel('Query').press('Enter');
    const hit = page.getByRole('button', { name: 'curie.md' });
    await hit.waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('q')).toBe('radium polonium');
    expect(await page.locator('.result-summary').textContent()).toMatch(/1 result for “radium polonium”/);
    expect(await page.locator('.results mark').allTextContents()).toEqual(
      expect.arrayContaining(['radium', 'polonium']),
    );
    await screenshot(page, '03-search-results');
    await expectAccessible(page, 'search results');
    await hit.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'curie.md' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('document_id');
    await screenshot(page, '04-search-hit');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('curie.md');

    // The graph: the most connected node opens expanded; another is expanded; a path is shown.
    await page.getByRole('link', { name: 'Knowledge graph', exact: true }).click();
    await page.locator('.graph-canvas canvas').first().waitFor({ timeout: 30_000 });
    const mostConnected = page.getByRole('complementary', { name: 'Find nodes' });
    await mostConnected.getByRole('button', { name: 'Marie Curie' }).click();
    const selected = page.getByRole('complementary', { name: 'Selected node and shown nodes' });
    await expect
      .poll(() => selected.getByRole('heading', { level: 2 }).first().textContent())
      .toBe('Marie Curie');
    await expect
      .poll(() => selected.locator('.edge-list li').allTextContents())
      .toEqual(expect.arrayContaining(['→ discovered Radium', '← married Pierre Curie', '→ born_in Warsaw']));
    await selected.locator('.edge-list').getByRole('button', { name: 'Radium' }).click();
    await selected.getByRole('button', { name: 'Expand neighbours' }).click();
    await expect
      .poll(() => selected.locator('.edge-list li').allTextContents())
      .toEqual(expect.arrayContaining(['→ part_of Periodic Table', '← discovered Marie Curie']));
    await page.getByLabel('From').fill('Pierre Curie');
    await page.getByLabel('To').fill('Periodic Table');
    await page.getByRole('button', { name: 'Show path' }).click();
    await expect
      .poll(() => page.locator('.path-message').textContent())
      .toBe('3 steps: Pierre Curie → Marie Curie → Radium → Periodic Table');
    await screenshot(page, '05-graph');
    await expectAccessible(page, 'graph');
    expect(await page.locator('.graph-fallback').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows the search page whole on a phone-sized screen', async () => {
    const phone = await launchChromium({ width: 390, height: 844 });
    try {
      await phone.page.goto(`${webUrl}/search?tenant=${encodeURIComponent(TENANT)}&q=radium`);
      await phone.page.getByRole('button', { name: 'curie.md' }).waitFor({ timeout: 30_000 });
      const overflow = await phone.page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(phone.page, '06-phone-search', true);
    } finally {
      await phone.close();
    }
  });

  it('chats with the search agent in a thread the runtime stores, streaming the answer with its hits and sources', async () => {
    const { page } = browser;
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const runs: string[] = [];
    const onRequest = (request: Request) => {
      if (request.url().includes('/ui-api/copilotkit/')) runs.push(request.url());
    };
    page.on('request', onRequest);
    await page.goto(`${webUrl}/chat?tenant=${encodeURIComponent(TENANT)}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Chat');
    await expect.poll(() => page.getByLabel('Agent', { exact: true }).inputValue()).toBe('search_agent');
    // Every enabled, implemented agent of the registry is offered.
    const registry = (await call(runtime.url, 'GET', '/agents')).body as {
      agents: { name: string; enabled: boolean; available: boolean }[];
    };
    const runnable = registry.agents.filter((a) => a.enabled && a.available).map((a) => a.name);
    expect(await page.getByLabel('Agent', { exact: true }).locator('option').allTextContents()).toEqual(
      runnable,
    );

    await page.getByLabel('Message', { exact: true }).fill('radium polonium');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    const answer = page.locator('.chat-assistant').last();
    await expect.poll(() => answer.getAttribute('aria-busy'), { timeout: 60_000 }).toBe('false');
    expect(await answer.locator('.chat-answer').textContent()).toMatch(
      /^Found 1 result:\s*1\. \[curie\.md\]/,
    );
    expect(
      await answer.getByRole('list', { name: 'Hits' }).locator('.chat-hit-source').allTextContents(),
    ).toEqual(['curie.md']);
    expect(await answer.locator('.chat-sources cite').count()).toBeGreaterThan(0);
    expect(runs.every((url) => url.endsWith('/ui-api/copilotkit/agent/search_agent/run'))).toBe(true);
    expect(runs).toHaveLength(1);
    // The thread is the runtime's: listed by /conversations, with the turn stored.
    const threadId = new URL(page.url()).searchParams.get('thread')!;
    expect(threadId).toMatch(/^web-/);
    const thread = page
      .getByRole('navigation', { name: 'Threads' })
      .getByRole('button', { name: /radium polonium/ });
    await thread.waitFor();
    expect(await thread.getAttribute('aria-current')).toBe('true');
    const stored = await call(
      runtime.url,
      'GET',
      `/conversations/${threadId}?tenant_id=${encodeURIComponent(TENANT)}`,
    );
    expect(stored.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    await screenshot(page, '08-chat');
    await expectAccessible(page, 'chat');

    // A second turn whose stream breaks after the answer's first piece: the turn is mended from the stored
    // thread, shown once, whole.
    await page.route(
      '**/ui-api/copilotkit/agent/*/run',
      async (route: Route) => {
        const whole = await (await route.fetch()).text();
        const frames = whole.split('\n\n').filter((frame) => frame.trim() !== '');
        const cut = frames.findIndex((frame) => frame.includes('TEXT_MESSAGE_CONTENT'));
        await route.fulfill({
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: `${frames.slice(0, cut + 1).join('\n\n')}\n\n`,
        });
      },
      { times: 1 },
    );
    await page.getByLabel('Message', { exact: true }).fill('Nobel Prize chemistry');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.chat-assistant').count(), { timeout: 60_000 }).toBe(2);
    await expect.poll(() => answer.getAttribute('aria-busy'), { timeout: 60_000 }).toBe('false');
    const mended = await call(
      runtime.url,
      'GET',
      `/conversations/${threadId}?tenant_id=${encodeURIComponent(TENANT)}`,
    );
    expect(mended.body.message_count).toBe(4);
    await expect
      .poll(async () =>
        (await page.locator('.chat-assistant').last().locator('.chat-answer').textContent())?.replace(
          /\s+/g,
          '',
        ),
      )
      .toBe(mended.body.messages[3].content.replace(/\s+/g, ''));
    expect(await page.locator('.chat-user').allTextContents()).toEqual([
      'You: radium polonium',
      'You: Nobel Prize chemistry',
    ]);

    // A reload shows the stored thread, each turn once.
    await page.reload();
    await expect.poll(() => page.locator('.chat-assistant').count()).toBe(2);
    expect(await page.locator('.chat-assistant .chat-agent').allTextContents()).toEqual([
      'search_agent',
      'search_agent',
    ]);
    page.off('request', onRequest);
    expect(errors).toEqual([]);
  });

  it("shows an orchestration's plan with each agent's hits, and a coding agent's files, with the tenant's LLM", async () => {
    const { page } = browser;
    // The tenant's LLM on loopback (the one thing that cannot run here), speaking OpenAI's wire protocol.
    const llm = await startServer(
      openAIChat((request) => {
        const schema = request.response_format!.json_schema!.name;
        if (schema === 'orchestration_plan')
          return {
            content: {
              steps: [
                { agent_name: 'search_agent', query: 'radium discovery', depends_on: [] },
                { agent_name: 'search_agent', query: 'Nobel Prize', depends_on: [] },
              ],
            },
          };
        if (schema === 'orchestration_answer')
          return { content: { final_answer: 'Marie and Pierre Curie discovered radium in Paris.' } };
        if (schema === 'code_files')
          return {
            content: {
              files: [
                {
                  path: 'src/add.ts',
                  language: 'ts',
                  content: 'export const add = (a: number, b: number) => a + b;',
                },
              ],
              explanation: 'One function.',
            },
          };
        return { content: { summary: 'A summary.' } };
      }),
    );
    const tenantLlm = `/admin/tenants/${encodeURIComponent(TENANT)}/config/llm`;
    expect(
      (await call(runtime.url, 'PUT', tenantLlm, { model: 'openai/planner', api_base: `${llm.url}/v1` }))
        .status,
    ).toBe(200);
    try {
      await page.goto(`${webUrl}/chat?tenant=${encodeURIComponent(TENANT)}&agent=orchestrator_agent`);
      await page.getByRole('button', { name: 'New chat' }).click();
      await expect
        .poll(() => page.getByLabel('Agent', { exact: true }).inputValue())
        .toBe('orchestrator_agent');
      await page.getByLabel('Message', { exact: true }).fill('How was radium found?');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      const answer = page.locator('.chat-assistant').last();
      await expect.poll(() => answer.getAttribute('aria-busy'), { timeout: 90_000 }).toBe('false');
      expect(await answer.locator('.chat-answer').textContent()).toBe(
        'Marie and Pierre Curie discovered radium in Paris.',
      );
      const plan = answer.locator('.chat-plan');
      expect(await plan.locator('summary').textContent()).toBe('Plan: 2 steps');
      expect(await plan.locator('li > strong').allTextContents()).toEqual(['search_agent', 'search_agent']);
      expect(
        await plan
          .getByRole('list', { name: 'Hits of search_agent' })
          .first()
          .locator('.chat-hit-source')
          .allTextContents(),
      ).toContain('curie.md');
      // The thread keeps the user's question and the orchestrator's answer, not its sub-agents' calls.
      const orchestrated = new URL(page.url()).searchParams.get('thread')!;
      await expect
        .poll(async () => {
          const thread = await call(
            runtime.url,
            'GET',
            `/conversations/${orchestrated}?tenant_id=${encodeURIComponent(TENANT)}`,
          );
          return thread.body.messages?.map((m: { role: string; agent?: string }) => m.agent ?? m.role);
        })
        .toEqual(['user', 'orchestrator_agent']);
      await screenshot(page, '11-chat-orchestration');
      await expectAccessible(page, 'orchestration');

      await page.getByLabel('Agent', { exact: true }).selectOption('coding_agent');
      await page.getByLabel('Message', { exact: true }).fill('Write an add function in TypeScript');
      await page.getByRole('button', { name: 'Send' }).click();
      const code = page.locator('.chat-assistant').last().locator('.chat-code');
      await code.waitFor({ timeout: 60_000 });
      expect(await code.locator('figcaption').textContent()).toBe('src/add.ts');
      expect(await code.locator('code').textContent()).toBe(
        'export const add = (a: number, b: number) => a + b;',
      );
      await screenshot(page, '12-chat-coding');
    } finally {
      await call(runtime.url, 'PUT', tenantLlm, { model: 'openai/none' });
      await llm.close();
    }
  });

  it("shows the tenant's wiki pages and scheduled jobs", async () => {
    const { page } = browser;
    const saved = await call(runtime.url, 'POST', '/wiki/save', {
      tenant_id: TENANT,
      query: 'Who discovered radium?',
      response: { answer: 'Marie Curie and Pierre Curie discovered radium in 1898.' },
      entities: ['Marie Curie', 'Radium'],
      agent_name: 'search_agent',
    });
    expect(saved.status).toBe(200);
    const job = await call(runtime.url, 'POST', `/admin/tenant/${encodeURIComponent(TENANT)}/jobs`, {
      name: 'Weekly radium digest',
      schedule: '0 9 * * MON',
      query: 'radium',
      agent_name: 'search_agent',
      post_actions: [{ type: 'wiki' }],
    });
    expect(job.status).toBe(201);

    await page.goto(`${webUrl}/wiki?tenant=${encodeURIComponent(TENANT)}`);
    const pages = page.getByRole('complementary', { name: 'Wiki pages' });
    await pages.getByRole('link', { name: 'Marie Curie', exact: true }).click();
    await expect.poll(() => page.locator('.wiki-title').textContent()).toBe('Marie Curie');
    expect(new URL(page.url()).searchParams.get('page')).toBe(saved.body.topics[0]);
    // Search the wiki with the keyboard.
    await page.getByLabel('Search the wiki').fill('radium');
    await page.getByLabel('Search the wiki').press('Enter');
    await expect.poll(() => pages.locator('p[aria-live]').textContent()).toMatch(/\d+ pages? match/);
    await pages.getByRole('link', { name: 'Radium', exact: true }).click();
    await expect.poll(() => page.locator('.wiki-title').textContent()).toBe('Radium');
    await screenshot(page, '09-wiki');
    await expectAccessible(page, 'wiki');

    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    const row = page.getByRole('row', { name: /Weekly radium digest/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('0 9 * * MON');
    expect(await row.textContent()).toContain('search_agent');
    expect(await row.textContent()).toContain('not run yet');
    await screenshot(page, '10-jobs');
    await expectAccessible(page, 'jobs');
  });

  it('keeps the graph explorer responsive for a tenant with 100,000 graph nodes and a hub of 10,000 neighbours', async () => {
    const big = 'big:graph';
    expect((await call(runtime.url, 'POST', '/admin/tenants', { tenant_id: big })).status).toBe(201);
    const hubEvery = 10;
    const batch = 10_000;
    for (let start = 0; start < 100_000; start += batch) {
      const nodes = Array.from({ length: batch }, (_, i) => ({
        name: `Node ${start + i}`,
        kind: 'entity',
        label: 'Thing',
      }));
      const edges = nodes.map((node, i) => ({
        // Every tenth node hangs off the hub, the others off the node before them.
        source: (start + i) % hubEvery === 0 ? 'Hub' : `Node ${start + i - 1}`,
        relation: 'links',
        target: node.name,
        evidence_span: `${node.name} links`,
        segment_id: 'chunk_0',
        ts_start: 0,
        ts_end: 0,
        modality: 'text',
      }));
      const body = { tenant_id: big, source_doc_id: `part-${start}`, nodes, edges };
      if (start === 0)
        body.nodes = [...nodes.slice(0, batch - 1), { name: 'Hub', kind: 'entity', label: 'Thing' }];
      expect((await call(runtime.url, 'POST', '/graph/upsert', body)).status).toBe(200);
    }
    const stats = await call(runtime.url, 'GET', `/graph/stats?tenant_id=${encodeURIComponent(big)}`);
    expect(stats.body.node_count).toBeGreaterThanOrEqual(100_000);

    const { page } = browser;
    await page.goto(`${webUrl}/graph?tenant=${encodeURIComponent(big)}`);
    // The longest task the main thread runs from here on.
    await page.evaluate(`window.__longest = 0; new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
    }).observe({ type: 'longtask' })`);
    await page.locator('.graph-canvas canvas').first().waitFor({ timeout: 60_000 });
    const found = page.getByRole('complementary', { name: 'Find nodes' });
    await found.getByRole('button', { name: 'Hub', exact: true }).click({ timeout: 60_000 });
    const selected = page.getByRole('complementary', { name: 'Selected node and shown nodes' });
    const more = selected.getByRole('button', { name: /^Load 25 more \(\d+ not shown\)$/ });
    await more.waitFor({ timeout: 60_000 });
    const before = Number(/\((\d+) not shown\)/.exec((await more.textContent())!)![1]);
    expect(before).toBeGreaterThan(9_000);
    // A page more: the view grows by a page of 25 (the hub may have opened expanded already), the rest stays
    // on the server's answer, and the page still answers.
    await more.click();
    await expect
      .poll(async () => Number(/\((\d+) not shown\)/.exec((await more.textContent()) ?? '')?.[1]))
      .toBeLessThanOrEqual(before - 25);
    const started = Date.now();
    await page.getByLabel('From').fill('Node 1');
    expect(await page.getByLabel('From').inputValue()).toBe('Node 1');
    expect(Date.now() - started).toBeLessThan(5_000);
    // No task held the main thread for long (a loaded machine, so a wide margin: a frozen page takes seconds).
    expect(await page.evaluate<number>('window.__longest')).toBeLessThan(1_500);
    await screenshot(page, '13-graph-100k');
  });

  it('sends a 1 GB file straight to storage through the presigned route, showing its progress', async () => {
    const { page } = browser;
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-big-upload-'));
    const file = path.join(dir, 'lecture.mp4');
    // 1 GiB, sparse on disk: the browser reads and sends every byte.
    const handle = openSync(file, 'w');
    ftruncateSync(handle, 1024 ** 3);
    closeSync(handle);
    const sent: string[] = [];
    const onRequest = (request: Request) => {
      if (
        request.method() === 'PUT' ||
        new URL(request.url()).pathname === '/ui-api/runtime/ingestion/upload'
      )
        sent.push(`${request.method()} ${new URL(request.url()).pathname}`);
    };
    page.on('request', onRequest);
    try {
      await page.goto(`${webUrl}/upload?tenant=${encodeURIComponent(TENANT)}`);
      await page.getByLabel('Choose files').setInputFiles(file);
      const job = page.getByRole('listitem', { name: /^lecture\.mp4: / });
      await job.waitFor();
      expect(await job.locator('.job-meta').textContent()).toContain('1.0 GB · direct to storage');
      // Progress while it goes: some bytes of the whole sent, then the upload done.
      await expect
        .poll(async () => (await job.getByRole('progressbar').getAttribute('aria-valuetext')) ?? '', {
          timeout: 120_000,
        })
        .toMatch(/^([1-9]|[1-9]\d)% Uploading$/);
      await screenshot(page, '14-upload-1gb');
      await expect
        .poll(() => job.getAttribute('aria-label'), { timeout: 300_000 })
        .not.toBe('lecture.mp4: Uploading');
      // One PUT to storage; nothing through the web server's upload route.
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^PUT \//);
      expect(sent[0]).not.toContain('/ui-api/');
      // Then the job runs and ends (these bytes are no video: it fails, saying so).
      await expect
        .poll(() => job.getAttribute('aria-label'), { timeout: 300_000 })
        .toMatch(/^lecture\.mp4: (Complete|Failed)$/);
    } finally {
      page.off('request', onRequest);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('resumes a job stream that breaks mid-way with Last-Event-ID, showing each event once', async () => {
    const { page } = browser;
    await page.goto(`${webUrl}/upload?tenant=${encodeURIComponent(TENANT)}`);
    const streams: Request[] = [];
    const onRequest = (request: Request) => {
      if (request.url().includes('/ui-api/runtime/events/ingestion/')) streams.push(request);
    };
    page.on('request', onRequest);
    // The first stream breaks after its second event: the runtime's frames up to there, then the end.
    await page.route(
      '**/ui-api/runtime/events/ingestion/**',
      async (route: Route) => {
        const answer = await route.fetch();
        const frames = (await answer.text()).split('\n\n').filter((frame) => frame.trim() !== '');
        await route.fulfill({
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: `${frames.slice(0, 3).join('\n\n')}\n\n`, // `connected` and the events at offsets 0 and 1
        });
      },
      { times: 1 },
    );
    await page.getByLabel('Choose files').setInputFiles({
      name: 'polonium.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(
        '# Polonium\n\nPolonium was discovered by Marie Curie in 1898 and named after Poland.\n',
      ),
    });
    const job = page.getByRole('listitem', { name: /^polonium\.md: / });
    await expect
      .poll(() => job.getAttribute('aria-label'), { timeout: 60_000 })
      .toBe('polonium.md: Complete');
    page.off('request', onRequest);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    // The browser resumed after the last event it had: offset 1.
    expect((await streams[1]!.allHeaders())['last-event-id']).toBe('1');
    const jobId = /ingest_[0-9a-f]+/.exec((await job.textContent()) ?? '')![0];
    const status = await call(runtime.url, 'GET', `/ingestion/${jobId}/events`);
    await job.getByText(/^Events \(\d+\)$/).click();
    const shown = await job.locator('.job-log li').count();
    // One line per event of the job's task, none twice.
    const stream = await fetch(`${runtime.url}/events/ingestion/${jobId}`);
    const events = (await stream.text())
      .split('\n\n')
      .filter((frame) => frame.includes('\nid: ') || frame.startsWith('id: '));
    expect(status.body.state).toBe('complete');
    expect(shown).toBe(events.length);
  });
});

describe('web client and a runtime that goes away', () => {
  it('says the runtime is down, and recovers by itself when it returns', async () => {
    const { defaultClientDir, startWebServer } = await import('@tessera/web-server');
    const port = await freePort();
    const dataDir = tempDataDir();
    const env = { TESSERA_PORT: String(port) };
    let own = await spawnRuntime({ dataDir, env });
    const web = await startWebServer({
      port: 0,
      host: '127.0.0.1',
      runtimeUrl: own.url,
      harnessKeyTtlS: 60,
      clientDir: defaultClientDir,
    });
    const page = await browser.context.newPage();
    try {
      await call(own.url, 'POST', '/admin/tenants', {
        tenant_id: 'initech:ops',
        base_schemas: ['document_text'],
      });
      const form = new FormData();
      form.append('tenant_id', 'initech:ops');
      form.append('wait', 'true');
      form.append('file', new Blob(['# Runbook\n\nRestart the staplers every Monday.\n']), 'runbook.md');
      expect((await fetch(`${own.url}/ingestion/upload`, { method: 'POST', body: form })).status).toBe(200);

      await page.goto(`${web.url}/search?tenant=initech:ops`);
      await expect.poll(() => page.locator('.runtime-dot').textContent()).toContain('online');
      await expect.poll(() => page.getByLabel('Profile').inputValue()).toBe('document_text_semantic');
      expect(await page.getByRole('alert').count()).toBe(0);

      expect(await own.stop()).toBe(0);
      await page.getByLabel('Query').fill('staplers');
      await page.getByLabel('Query').press('Enter');
      const banner = page.getByRole('alert').filter({ hasText: 'The runtime is not answering' });
      await banner.waitFor({ timeout: 10_000 });
      expect(await page.locator('.runtime-dot').textContent()).toContain('offline');
      expect(await page.locator('.result-summary').textContent()).toContain('The runtime is unavailable');
      await screenshot(page, '07-runtime-down');
      // The web server itself stays healthy.
      expect((await fetch(`${web.url}/healthz`)).status).toBe(200);

      own = await spawnRuntime({ dataDir, env });
      await banner.waitFor({ state: 'hidden', timeout: 30_000 });
      expect(await page.locator('.runtime-dot').textContent()).toContain('online');
      // The search the outage failed runs again by itself: no reload, no click.
      await page.getByRole('button', { name: 'runbook.md' }).waitFor({ timeout: 20_000 });
    } finally {
      await page.close();
      await web.stop();
      await own.stop();
    }
  });
});
