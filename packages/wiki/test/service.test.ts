/** The wiki domain over fakes: saves with topic and index pages, concurrency, search, delete, index, lint, auto-filing. */
import { HttpError, parseTenantId } from '@tessera/core';
import { createTenant, deleteTenant } from '@tessera/tenancy';
import { wikiPage } from '@tessera/testing/contracts';
import { fakeDomains } from '@tessera/testing/fakes';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  autoFile,
  autoFileAll,
  deletePage,
  filingReason,
  getPage,
  holdAll,
  lintWiki,
  SESSIONS_LOCK,
  saveSession,
  searchWiki,
  turnsOf,
  wikiIndex,
  wikiSchemaOf,
} from '../src/index';

const domains = fakeDomains();
const deps = domains.wiki;

beforeAll(async () => {
  for (const tenant of ['acme', 'lint', 'empty', 'file', 'gone'])
    await createTenant(deps.tenancy, { tenant_id: tenant, created_by: 'test' });
});

const status = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
};

describe('wiki saves', () => {
  it('writes the session page, a topic page per entity with cross-references, and the index page', async () => {
    const saved = await saveSession(deps, 'acme', {
      query: 'Who discovered radium?',
      response: { answer: 'Marie Curie and Pierre Curie discovered radium in 1898.', sources: ['doc-7'] },
      entities: ['Marie Curie', { text: 'Pierre Curie', label: 'Person' }, 'Radium', 'marie curie', '!!'],
      agent_name: 'search_agent',
    });
    expect(saved.status).toBe('saved');
    expect(saved.slug).toMatch(/^session_\d{14}_[0-9a-f]{8}$/);
    expect(saved.topics).toEqual(['marie_curie', 'pierre_curie', 'radium']);

    const session = await getPage(deps, 'acme', saved.slug);
    expect(session).toMatchObject({
      kind: 'session',
      title: 'Who discovered radium?',
      agent_name: 'search_agent',
      query: 'Who discovered radium?',
      sources: ['doc-7'],
      cross_refs: ['marie_curie', 'pierre_curie', 'radium'],
      version: 1,
    });
    expect(session.content).toContain('Marie Curie and Pierre Curie discovered radium in 1898.');
    expect(session.content).toContain('- [[pierre_curie]] Pierre Curie (Person)');

    const topic = await getPage(deps, 'acme', 'marie_curie');
    expect(topic).toMatchObject({ kind: 'topic', title: 'Marie Curie', version: 1 });
    expect(topic.cross_refs).toEqual(expect.arrayContaining([saved.slug, 'pierre_curie', 'radium']));
    expect(topic.content).toContain(`- [[${saved.slug}]] Who discovered radium?`);

    const index = await getPage(deps, 'acme', 'index');
    expect(index.kind).toBe('index');
    expect(index.cross_refs).toEqual(['marie_curie', 'pierre_curie', 'radium']);
  });

  it('loses no session of many concurrent saves mentioning one entity', async () => {
    const saves = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        saveSession(deps, 'acme', {
          query: `Question ${i} about polonium`,
          response: { answer: `Answer ${i}` },
          entities: ['Polonium'],
          agent_name: 'gateway_agent',
        }),
      ),
    );
    const topic = await getPage(deps, 'acme', 'polonium');
    expect(topic.version).toBe(20);
    for (const saved of saves) {
      expect(topic.cross_refs).toContain(saved.slug);
      expect(topic.content).toContain(`[[${saved.slug}]]`);
    }
    expect((await getPage(deps, 'acme', 'index')).cross_refs).toContain('polonium');
  });

  it('searches titles and content, best first, with snippets', async () => {
    const found = await searchWiki(deps, 'acme', 'radium 1898', 5);
    expect(found.count).toBe(found.results.length);
    expect(found.results[0]).toMatchObject({ kind: 'session', title: 'Who discovered radium?' });
    expect(found.results[0]!.snippet).toContain('radium');
    expect((await searchWiki(deps, 'acme', 'zyzzyva', 5)).results).toEqual([]);
  });

  it('deletes a page (then 404), drops it from the index, and answers 404 for unknown slugs', async () => {
    expect(await deletePage(deps, 'acme', 'radium')).toEqual({ status: 'deleted', slug: 'radium' });
    expect(await status(getPage(deps, 'acme', 'radium'))).toBe(404);
    expect(await status(deletePage(deps, 'acme', 'radium'))).toBe(404);
    await expect(getPage(deps, 'acme', 'nope')).rejects.toMatchObject({
      detail: "Wiki page 'nope' not found",
    });
    expect((await getPage(deps, 'acme', 'index')).cross_refs).not.toContain('radium');
    expect(await status(getPage(deps, 'nobody', 'index'))).toBe(404);
  });

  it('lists the index newest first', async () => {
    const listed = await wikiIndex(deps, 'acme');
    expect(listed.total_count).toBe(listed.pages.length);
    expect(listed.pages.length).toBeGreaterThan(20);
    const times = listed.pages.map((p) => p.updated_at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});

describe('wiki lint', () => {
  it('answers empty findings for an empty wiki, without deploying anything', async () => {
    expect(await lintWiki(deps, 'empty')).toEqual({ orphan: [], stale: [], empty: [], malformed: [] });
    expect(await wikiIndex(deps, 'empty')).toEqual({ pages: [], total_count: 0 });
    expect(domains.search.table(wikiSchemaOf(parseTenantId('empty')))).toBeUndefined();
  });

  it('finds orphan, stale, empty and malformed pages', async () => {
    const saved = await saveSession(deps, 'lint', {
      query: 'What is curium?',
      response: { answer: 'Curium is element 96, named after the Curies.' },
      entities: ['Curium'],
      agent_name: 'gateway_agent',
    });
    const table = wikiSchemaOf(parseTenantId('lint'));
    const old = deps.now() - 31 * 24 * 3600 * 1000;
    const fresh = { created_at: deps.now(), updated_at: deps.now() };
    await deps.store.load(table, [
      wikiPage('lonely', {
        ...fresh,
        content: '# Lonely\n\nA topic page no other page links to, long enough to count.',
      }),
      wikiPage('tiny', { ...fresh, content: '# Tiny', cross_refs: ['lonely'] }),
      wikiPage('broken', {
        ...fresh,
        content: 'no title line, and a link to [[nowhere]] at all, long enough here.',
        cross_refs: ['tiny'],
      }),
      wikiPage('ancient', {
        kind: 'session',
        updated_at: old,
        cross_refs: ['broken'],
        content: '# Ancient\n\nA session nobody touched for a month and more.',
      }),
    ]);
    // The session page is deleted: its topic loses its only link.
    await deletePage(deps, 'lint', saved.slug);
    const found = await lintWiki(deps, 'lint');
    expect(found.orphan).toEqual(['curium']);
    expect(found.stale).toEqual(['ancient']);
    expect(found.empty).toEqual(['tiny']);
    // No title line and a link to no page; the topic still links the deleted session.
    expect(found.malformed).toEqual(['broken', 'curium']);
  });

  it('counts pages stale after 30 days', async () => {
    domains.clock.offset = 31 * 24 * 3600 * 1000;
    try {
      expect((await lintWiki(deps, 'lint')).stale).toContain('curium');
    } finally {
      domains.clock.offset = 0;
    }
  });
});

describe('auto-filing', () => {
  it('follows document 3: 3 or more entities, a report or research answer, or 4 or more turns', () => {
    expect(filingReason('search_agent', 2, 3)).toBeUndefined();
    expect(filingReason('search_agent', 3, 1)).toBe('3 entities');
    expect(filingReason('detailed_report_agent', 0, 1)).toBe('an answer of detailed_report_agent');
    expect(filingReason('deep_research_agent', 0, 1)).toBeDefined();
    expect(filingReason('gateway_agent', 0, 4)).toBe('4 conversation turns');
    expect(turnsOf({})).toBe(1);
    expect(turnsOf({ history: [1, 2, 3] })).toBe(4);
    expect(turnsOf({ turns: 5 })).toBe(5);
  });

  it('files a run with enough entities and leaves a small one alone', async () => {
    const tenant = parseTenantId('file');
    const tag = async (text: string) =>
      ['Ada Lovelace', 'Charles Babbage', 'Analytical Engine'].filter((n) => text.includes(n));
    const slug = await autoFile(
      deps,
      {
        tenant,
        agentName: 'search_agent',
        query: 'Ada Lovelace and Charles Babbage',
        result: { answer: 'They worked on the Analytical Engine.' },
        context: {},
      },
      tag,
    );
    expect(slug).toMatch(/^session_/);
    expect((await getPage(deps, 'file', 'analytical_engine')).cross_refs).toContain(slug);
    const none = await autoFile(
      deps,
      { tenant, agentName: 'search_agent', query: 'hello', result: { answer: 'hi' }, context: {} },
      tag,
    );
    expect(none).toBeUndefined();
  });
});

describe('filing one run', () => {
  it('saves it once however often it is filed: one session under its run id, topics and index unchanged after', async () => {
    const tenant = parseTenantId('file');
    const tag = async (text: string) =>
      ['Grace Hopper', 'COBOL', 'Harvard Mark I'].filter((n) => text.includes(n));
    const run = {
      runId: 'run-42',
      completedAt: Date.UTC(2026, 0, 2, 3, 4, 5),
      tenant,
      agentName: 'search_agent',
      query: 'Grace Hopper and COBOL',
      result: { answer: 'She programmed the Harvard Mark I.' },
      context: {},
    };
    const slug = await autoFile(deps, run, tag);
    expect(slug).toMatch(/^session_20260102030405_[0-9a-f]{8}$/);
    const schema = wikiSchemaOf(tenant);
    const before = await deps.store.list(schema);
    expect(await autoFile(deps, run, tag)).toBe(slug);
    expect(
      await autoFile(deps, { ...run, result: { answer: 'A second delivery: the Harvard Mark I.' } }, tag),
    ).toBe(slug);
    const after = await deps.store.list(schema);
    expect(after).toEqual(before);
    expect(after.filter((page) => page.kind === 'session' && page.query === run.query)).toHaveLength(1);
    // Another run of the same query is another session.
    expect(await autoFile(deps, { ...run, runId: 'run-43' }, tag)).not.toBe(slug);
  });
});

describe('filing a batch of runs', () => {
  it('files the runs of one tenant in one write: sessions, shared topics and the index, once however often', async () => {
    const tenant = parseTenantId('file');
    const tag = async (text: string) =>
      ['Alan Turing', 'Bletchley Park', 'Enigma'].filter((n) => text.includes(n));
    const run = (n: number, query: string) => ({
      runId: `batch-${n}`,
      completedAt: Date.UTC(2026, 1, 3, 4, 5, n),
      tenant,
      agentName: 'search_agent',
      query,
      result: { answer: 'At Bletchley Park, on Enigma.' },
      context: {},
    });
    const runs = [
      run(1, 'Alan Turing at Bletchley Park'),
      run(2, 'Alan Turing and Enigma'),
      { ...run(3, 'small talk'), result: { answer: 'nothing to file' } },
    ];
    const schema = wikiSchemaOf(tenant);
    const writes: number[] = [];
    const counting = {
      ...deps,
      store: {
        ...deps.store,
        updateMany: (name: string, changes: Parameters<typeof deps.store.updateMany>[1]) => {
          writes.push(changes.length);
          return deps.store.updateMany(name, changes);
        },
      },
    };
    const slugs = await autoFileAll(counting, runs, tag);
    expect(writes).toHaveLength(1);
    expect(slugs[0]).toMatch(/^session_20260203040501_/);
    expect(slugs[1]).toMatch(/^session_20260203040502_/);
    expect(slugs[2]).toBeUndefined();
    const turing = await getPage(deps, 'file', 'alan_turing');
    expect(turing.version).toBe(2);
    expect(turing.cross_refs).toEqual(
      expect.arrayContaining([slugs[0], slugs[1], 'bletchley_park', 'enigma']),
    );
    const index = await getPage(deps, 'file', 'index');
    expect(index.cross_refs).toEqual(expect.arrayContaining(['alan_turing', 'bletchley_park', 'enigma']));

    // Filed again (a redelivered batch): nothing changes.
    const before = await deps.store.list(schema);
    expect(await autoFileAll(deps, runs, tag)).toEqual(slugs);
    expect(await deps.store.list(schema)).toEqual(before);
    // With a new run beside a filed one: only the new one is filed.
    const again = await autoFileAll(deps, [runs[0]!, run(4, 'Alan Turing again')], tag);
    expect(again[0]).toBe(slugs[0]);
    expect(again[1]).toMatch(/^session_20260203040504_/);
    const after = await getPage(deps, 'file', 'alan_turing');
    expect(after.version).toBe(3);
    expect(after.cross_refs.filter((ref) => ref.startsWith('session_'))).toHaveLength(3);
  });

  it('takes one lock for every session page of a write, and each other page its own, in order', async () => {
    const taken: string[] = [];
    const locks = {
      hold: <T>(_scope: string, slug: string, task: () => Promise<T>) => {
        taken.push(slug);
        return task();
      },
      purge: async () => {},
    };
    const slugs = [
      'session_20260203040501_aa',
      'index',
      'enigma',
      'session_20260203040502_bb',
      'alan_turing',
    ];
    expect(await holdAll(locks, 'wiki_x', slugs, async () => 'done')).toBe('done');
    expect(taken).toEqual([SESSIONS_LOCK, 'alan_turing', 'enigma', 'index']);
  });

  it('refuses runs of two tenants in one filing', async () => {
    const runOf = (id: string) => ({
      tenant: parseTenantId(id),
      agentName: 'detailed_report_agent',
      query: 'q',
      result: { answer: 'a' },
      context: {},
    });
    await expect(autoFileAll(deps, [runOf('file'), runOf('acme')], async () => [])).rejects.toThrow(
      /2 tenants/,
    );
  });
});

describe('tenant delete', () => {
  it('removes the wiki with the tenant', async () => {
    await saveSession(deps, 'gone', {
      query: 'A page to remove',
      response: { answer: 'gone soon' },
      entities: ['Ephemera'],
      agent_name: 'gateway_agent',
    });
    const tenant = parseTenantId('gone');
    expect((await deps.store.list(wikiSchemaOf(tenant))).length).toBe(3);
    await deleteTenant(deps.tenancy, 'gone');
    expect(await deps.store.list(wikiSchemaOf(tenant))).toEqual([]);
  });
});
