import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RankingStrategy } from '@tessera/search';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
let rt: RuntimeProcess;
let feed: (tenant: string, source: string, text: string, profile?: string) => Promise<number>;

/** Paragraph chunks of a real document. */
const chunks = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 40);

beforeAll(async () => {
  rt = await spawnRuntime();
  for (const tenant of ['acme', 'rival']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant })).status).toBe(201);
  }
  // Feed through the domain, in this process, against the runtime's emulators and search directory.
  process.env.TESSERA_DATA_DIR = rt.dataDir;
  process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const { content, indexDocuments } = await import('@tessera/content');
  feed = async (tenant, source, text, profile = 'document_text_semantic') => {
    const documents = chunks(text).map((paragraph) => ({ fields: { title: source, text: paragraph } }));
    return (await indexDocuments(content(), { tenant, profile, sourceDocId: source, documents })).documents;
  };
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const notes = readFileSync(path.join(root, 'docs/lancedb-notes.md'), 'utf8');
  await feed('acme', 'README.md', readme);
  await feed('acme', 'lancedb-notes.md', notes);
  await feed('rival', 'rival-README.md', readme);
});

afterAll(async () => {
  await rt?.stop();
});

const strategies = RankingStrategy.options;

describe('POST /search/ (integration)', () => {
  it('finds the passage that answers a question, with the response fields', async () => {
    const { status, body } = await call(rt.url, 'POST', '/search/', {
      query: 'point the runtime at LocalStack',
      profile: 'document_text_semantic',
      tenant_id: 'acme',
      top_k: 5,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      query: 'point the runtime at LocalStack',
      profile: 'document_text_semantic',
      strategy: 'hybrid_bm25_float',
    });
    expect(body.count).toBe(body.results.length);
    expect(typeof body.took_ms).toBe('number');
    const [first] = body.results;
    expect(first).toMatchObject({ rank: 1, source_doc_id: 'README.md', profile: 'document_text_semantic' });
    expect(first.text).toMatch(/LocalStack/);
    expect(first.fields.title).toBe('README.md');
    expect(first.fields).not.toHaveProperty('embedding');
    expect(body.results.map((r: { rank: number }) => r.rank)).toEqual([1, 2, 3, 4, 5]);
  });

  it.each(strategies)('answers with strategy %s', async (strategy) => {
    const { status, body } = await call(rt.url, 'POST', '/search', {
      query: 'multivector MaxSim cosine distance',
      profile: 'document_text_semantic',
      tenant_id: 'acme',
      strategy,
    });
    expect(status).toBe(200);
    expect(body.strategy).toBe(strategy);
    expect(body.count).toBeGreaterThan(0);
    expect(body.results[0].source_doc_id).toBe('lancedb-notes.md');
  });

  it('never returns another tenant documents, even for the same text', async () => {
    const sources = async (tenant: string) => {
      const { body } = await call(rt.url, 'POST', '/search/', {
        query: 'tenant create deploys its primary schema',
        profile: 'document_text_semantic',
        tenant_id: tenant,
        strategy: 'bm25_only',
        top_k: 50,
      });
      return new Set(body.results.map((r: { source_doc_id: string }) => r.source_doc_id));
    };
    const acme = await sources('acme');
    const rival = await sources('rival');
    expect(acme.has('README.md')).toBe(true);
    expect(acme.has('rival-README.md')).toBe(false);
    expect(rival).toEqual(new Set(['rival-README.md']));
  });

  it('fuses several profiles by reciprocal rank fusion', async () => {
    await feed(
      'acme',
      'scoring.ts',
      readFileSync(path.join(root, 'packages/search/src/scoring.ts'), 'utf8'),
      'code_lateon_mv',
    );
    const { status, body } = await call(rt.url, 'POST', '/search/', {
      query: 'popcount hamming distance',
      profiles: ['document_text_semantic', 'code_lateon_mv'],
      tenant_id: 'acme',
      strategy: 'bm25_only',
      top_k: 10,
    });
    expect(status).toBe(200);
    expect(body.profiles).toEqual(['document_text_semantic', 'code_lateon_mv']);
    expect(new Set(body.results.map((r: { profile: string }) => r.profile))).toEqual(
      new Set(['document_text_semantic', 'code_lateon_mv']),
    );
    // Rank 1 of either profile scores 1/61; two profiles' rank-1 documents tie at the top.
    expect(body.results[0].score).toBeCloseTo(1 / 61, 10);
  });

  it('replaces a source when it is indexed again instead of duplicating it', async () => {
    const before = (await call(rt.url, 'GET', '/search/profiles?tenant_id=acme')).body;
    const count = (b: { profiles: { profile_name: string; document_count: number }[] }) =>
      b.profiles.find((p) => p.profile_name === 'document_text_semantic')!.document_count;
    await feed('acme', 'README.md', readFileSync(path.join(root, 'README.md'), 'utf8'));
    const after = (await call(rt.url, 'GET', '/search/profiles?tenant_id=acme')).body;
    expect(count(after)).toBe(count(before));
    expect(count(after)).toBeGreaterThan(10);
  });

  it('refuses bad requests with a 4xx naming the problem', async () => {
    const missing = await call(rt.url, 'POST', '/search/', { query: 'x', profile: 'document_text_semantic' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'tenant_id'] });
    const profile = await call(rt.url, 'POST', '/search/', {
      query: 'x',
      profile: 'nope',
      tenant_id: 'acme',
    });
    expect(profile.status).toBe(400);
    expect(profile.body.detail).toMatch(/Unknown profile 'nope'; available: .*document_text_semantic/);
    const strategy = await call(rt.url, 'POST', '/search/', {
      query: 'x',
      profile: 'document_text_semantic',
      tenant_id: 'acme',
      strategy: 'magic',
    });
    expect(strategy.status).toBe(422);
    expect(strategy.body.detail[0].loc).toEqual(['body', 'strategy']);
    expect(strategy.body.detail[0].msg).toMatch(/bm25_only/);
    for (const top_k of [0, 1001, 2.5]) {
      expect(
        (
          await call(rt.url, 'POST', '/search/', {
            query: 'x',
            profile: 'document_text_semantic',
            tenant_id: 'acme',
            top_k,
          })
        ).status,
      ).toBe(422);
    }
    expect((await call(rt.url, 'POST', '/search/', { query: 'x', tenant_id: 'acme' })).status).toBe(400);
    expect(
      await call(rt.url, 'POST', '/search/', {
        query: 'x',
        profile: 'document_text_semantic',
        tenant_id: 'ghost',
      }),
    ).toMatchObject({
      status: 404,
      body: { detail: "Tenant 'ghost:ghost' not registered." },
    });
  });
});

describe('GET /search/profiles (integration)', () => {
  it('lists the profiles a tenant can search with their strategies', async () => {
    const { status, body } = await call(rt.url, 'GET', '/search/profiles?tenant_id=acme');
    expect(status).toBe(200);
    expect(body.tenant_id).toBe('acme:acme');
    const documents = body.profiles.find(
      (p: { profile_name: string }) => p.profile_name === 'document_text_semantic',
    );
    expect(documents).toMatchObject({
      schema_name: 'document_text',
      tenant_schema_name: 'document_text_acme_acme',
      schema_deployed: true,
      default_ranking_strategy: 'hybrid_bm25_float',
      encoder: 'embedded:glove-lexical-128',
    });
    expect(documents.ranking_strategies).toEqual(strategies);
    expect((await call(rt.url, 'GET', '/search/profiles')).status).toBe(422);
    expect((await call(rt.url, 'GET', '/search/profiles?tenant_id=ghost')).status).toBe(404);
  });
});
