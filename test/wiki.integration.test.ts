/**
 * The wiki through the local runtime: save (session, topic and index pages), search, topic get and delete,
 * index, lint; concurrent saves to one topic page; the bad input of issue 18 (unknown slugs, empty saves,
 * 1 MB of content, lint on an empty wiki); auto-filing after an agent run; tenant delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
const TENANT = 'acme:wiki';

const save = (body: Record<string, unknown>) =>
  call(rt.url, 'POST', '/wiki/save', { tenant_id: TENANT, ...body });
const index = async (tenant = TENANT) => (await call(rt.url, 'GET', `/wiki/index?tenant_id=${tenant}`)).body;

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  rt = await spawnRuntime({ env: { TESSERA_SCHEDULER: 'off' } });
  for (const tenant_id of [TENANT, 'acme:empty', 'acme:filed', 'acme:doomed']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id })).status).toBe(201);
  }
}, 180_000);

afterAll(async () => {
  await rt?.stop();
});

describe('wiki routes (integration)', () => {
  it('answers lint and index of an empty wiki, and 404 for its pages', async () => {
    expect((await call(rt.url, 'GET', '/wiki/lint?tenant_id=acme:empty')).body).toEqual({
      orphan: [],
      stale: [],
      empty: [],
      malformed: [],
    });
    expect(await index('acme:empty')).toEqual({ pages: [], total_count: 0 });
    const missing = await call(rt.url, 'GET', '/wiki/topic/index?tenant_id=acme:empty');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Wiki page 'index' not found" });
  });

  it('saves a session with topic pages and the index, and serves, searches and deletes them', async () => {
    const saved = await save({
      query: 'Who discovered polonium?',
      response: {
        answer: 'Marie Curie discovered polonium in 1898 with Pierre Curie.',
        sources: ['curie.md'],
      },
      entities: ['Marie Curie', { text: 'Pierre Curie', label: 'Person' }, 'Polonium'],
      agent_name: 'search_agent',
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      status: 'saved',
      topics: ['marie_curie', 'pierre_curie', 'polonium'],
    });
    const slug = saved.body.slug as string;

    const session = await call(rt.url, 'GET', `/wiki/topic/${slug}?tenant_id=${TENANT}`);
    expect(session.body).toMatchObject({
      slug,
      kind: 'session',
      agent_name: 'search_agent',
      sources: ['curie.md'],
      version: 1,
    });
    const topic = (await call(rt.url, 'GET', `/wiki/topic/marie_curie?tenant_id=${TENANT}`)).body;
    expect(topic).toMatchObject({ kind: 'topic', title: 'Marie Curie' });
    expect(topic.cross_refs).toEqual(expect.arrayContaining([slug, 'pierre_curie', 'polonium']));

    const listed = await index();
    expect(listed.total_count).toBe(5);
    expect(listed.pages.map((p: { slug: string }) => p.slug).sort()).toEqual(
      ['index', 'marie_curie', 'pierre_curie', 'polonium', slug].sort(),
    );

    const found = (await call(rt.url, 'POST', '/wiki/search', { tenant_id: TENANT, query: 'polonium 1898' }))
      .body;
    expect(found.count).toBeGreaterThan(0);
    expect(found.results[0]).toMatchObject({ slug, kind: 'session' });
    expect(found.results[0].snippet).toMatch(/polonium/i);

    expect((await call(rt.url, 'DELETE', `/wiki/topic/polonium?tenant_id=${TENANT}`)).body).toEqual({
      status: 'deleted',
      slug: 'polonium',
    });
    expect((await call(rt.url, 'GET', `/wiki/topic/polonium?tenant_id=${TENANT}`)).status).toBe(404);
    expect((await call(rt.url, 'DELETE', `/wiki/topic/polonium?tenant_id=${TENANT}`)).status).toBe(404);
    // The session still links the deleted topic: lint says so.
    expect((await call(rt.url, 'GET', `/wiki/lint?tenant_id=${TENANT}`)).body.malformed).toContain(slug);
  });

  it('loses no save of many concurrent ones to one topic page', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        save({
          query: `Radium question ${i}`,
          response: { answer: `Radium answer ${i}` },
          entities: ['Radium'],
        }),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const topic = (await call(rt.url, 'GET', `/wiki/topic/radium?tenant_id=${TENANT}`)).body;
    expect(topic.version).toBe(12);
    for (const answer of answers) expect(topic.cross_refs).toContain(answer.body.slug);
  });

  it('loses no save of concurrent ones to one topic page from two runtime processes', async () => {
    // A second runtime on the same emulators and search directory, as another Lambda instance would be.
    const second = await spawnRuntime({
      dataDir: rt.dataDir,
      env: { AWS_ENDPOINT_URL: rt.emulatorUrl!, TESSERA_QUEUE_WORKERS: 'off', TESSERA_SCHEDULER: 'off' },
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          call(i % 2 ? second.url : rt.url, 'POST', '/wiki/save', {
            tenant_id: TENANT,
            query: `Uranium question ${i}`,
            response: { answer: `Uranium answer ${i}` },
            entities: ['Uranium', 'Radium'],
          }),
        ),
      );
      for (const answer of answers) expect(answer.status).toBe(200);
      for (const url of [rt.url, second.url]) {
        const uranium = (await call(url, 'GET', `/wiki/topic/uranium?tenant_id=${TENANT}`)).body;
        expect(uranium.version).toBe(16);
        const radium = (await call(url, 'GET', `/wiki/topic/radium?tenant_id=${TENANT}`)).body;
        expect(radium.version).toBe(12 + 16);
        for (const answer of answers) {
          expect(uranium.cross_refs).toContain(answer.body.slug);
          expect(radium.cross_refs).toContain(answer.body.slug);
        }
      }
      // Both processes search what the other wrote.
      const titles = async (url: string, query: string) =>
        (
          (await call(url, 'POST', '/wiki/search', { tenant_id: TENANT, query, top_k: 20 })).body.results as {
            title: string;
          }[]
        ).map((r) => r.title);
      expect(await titles(second.url, 'Radium question 3')).toContain('Radium question 3');
      expect(await titles(rt.url, 'Uranium question 1')).toContain('Uranium question 1');
    } finally {
      await second.stop();
    }
  }, 180_000);

  it('refuses empty saves, 1 MB of content and unknown slugs, writing nothing', async () => {
    const before = await index();
    for (const body of [
      { query: '', response: { answer: 'x' } },
      { query: '   ', response: { answer: 'x' } },
      { query: 'q', response: {} },
      { query: 'q' },
      { query: 'q', response: { answer: 'x'.repeat(1024 * 1024) } },
    ]) {
      const refused = await save(body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(422);
    }
    expect((await save({ tenant_id: 'acme:nobody', query: 'q', response: { a: 1 } })).status).toBe(404);
    expect((await save({ tenant_id: 'bad::id', query: 'q', response: { a: 1 } })).status).toBe(400);
    for (const slug of ['no_such_page', 'Marie%20Curie', '..%2Findex']) {
      expect((await call(rt.url, 'GET', `/wiki/topic/${slug}?tenant_id=${TENANT}`)).status).toBe(404);
    }
    expect(await index()).toEqual(before);
  });

  it('files an agent run with 3 or more entities in the background', async () => {
    const run = await call(rt.url, 'POST', '/agents/entity_extraction_agent/process', {
      query: 'entities',
      context: {
        tenant_id: 'acme:filed',
        text: 'Marie Curie met Albert Einstein in Brussels at the Solvay Conference organized by Ernest Solvay.',
      },
    });
    expect(run.status).toBe(200);
    const filed = await eventually(async () => {
      const pages = (await index('acme:filed')).pages as { slug: string; kind: string }[];
      // The index page is written last.
      return pages.some((p) => p.kind === 'index') ? pages : undefined;
    });
    expect(filed.filter((p) => p.kind === 'topic').length).toBeGreaterThanOrEqual(3);
    const small = await call(rt.url, 'POST', '/agents/text_analysis_agent/process', {
      query: 'hello there',
      context: { tenant_id: 'acme:empty' },
    });
    expect(small.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await index('acme:empty')).total_count).toBe(0);
  });

  it('removes the wiki with its tenant', async () => {
    expect(
      (
        await call(rt.url, 'POST', '/wiki/save', {
          tenant_id: 'acme:doomed',
          query: 'Short-lived',
          response: { answer: 'gone soon' },
          entities: ['Ephemera'],
        })
      ).status,
    ).toBe(200);
    expect((await index('acme:doomed')).total_count).toBe(3);
    const deleted = await call(rt.url, 'DELETE', '/admin/tenants/acme:doomed');
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_schemas).toContain('wiki_acme_doomed');
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme:doomed' })).status).toBe(201);
    expect(await index('acme:doomed')).toEqual({ pages: [], total_count: 0 });
  });
});
