/** Content indexing and search over fakes: schema deploys, source replacement, the tenant guard. */
import { createTenant, getTenant } from '@tessera/tenancy';
import { fakeDomains } from '@tessera/testing/fakes';
import { beforeAll, describe, expect, it } from 'vitest';
import { hitText, indexDocuments, searchContent } from '../src/index';

const deps = fakeDomains().content;

beforeAll(async () => {
  await createTenant(deps.tenancy, { tenant_id: 'acme', created_by: 'test' });
});

const docs = (n: number, word: string) =>
  Array.from({ length: n }, (_, i) => ({
    fields: { title: 'guide.md', text: `${word} paragraph number ${i} about tenants` },
  }));

describe('indexDocuments', () => {
  it('deploys the profile schema on the first write and records it on the tenant', async () => {
    const result = await indexDocuments(deps, {
      tenant: 'acme',
      profile: 'document_text_semantic',
      sourceDocId: 'guide.md',
      documents: docs(3, 'first'),
    });
    expect(result).toEqual({ schema: 'document_text_acme_acme', documents: 3 });
    expect((await getTenant(deps.tenancy, 'acme')).schemas_deployed).toEqual([
      'video_frames',
      'document_text',
    ]);
  });

  it('replaces a source when it is indexed again, in one batch or many', async () => {
    const schema = 'document_text_acme_acme';
    const count = () => deps.index.count(schema, { sourceDocId: 'big.md' });
    await indexDocuments(deps, {
      tenant: 'acme',
      profile: 'document_text_semantic',
      sourceDocId: 'big.md',
      documents: docs(600, 'alpha'),
    });
    expect(await count()).toBe(600);
    await indexDocuments(deps, {
      tenant: 'acme',
      profile: 'document_text_semantic',
      sourceDocId: 'big.md',
      documents: docs(300, 'beta'),
    });
    expect(await count()).toBe(300);
    // No document written from the first version (ids big.md:0 to big.md:599) is left.
    const ids = Array.from({ length: 600 }, (_, i) => `big.md:${i}`);
    const left = await deps.index.fetch(schema, ids, ['text']);
    expect(left.filter((row) => String(row.text).startsWith('alpha'))).toHaveLength(0);
    await indexDocuments(deps, {
      tenant: 'acme',
      profile: 'document_text_semantic',
      sourceDocId: 'big.md',
      documents: docs(10, 'gamma'),
    });
    expect(await count()).toBe(10);
    // Other sources are untouched.
    expect(await deps.index.count(schema, { sourceDocId: 'guide.md' })).toBe(3);

    const found = await searchContent(deps, {
      query: 'gamma paragraph',
      tenant_id: 'acme',
      profile: 'document_text_semantic',
      top_k: 3,
    });
    expect(found.results[0]!.text).toMatch(/gamma paragraph number/);
  });

  it("shows a hit's text without its title in front or Markdown heading marks", async () => {
    await indexDocuments(deps, {
      tenant: 'acme',
      profile: 'document_text_semantic',
      sourceDocId: 'bio1.md',
      documents: [
        {
          fields: { title: 'Marie Curie', text: '# Marie Curie\n\nMarie Curie was born in Warsaw in 1867.' },
        },
        { fields: { title: 'Marie Curie', text: '## Polonium\n\nMarie Curie discovered polonium.' } },
      ],
    });
    const found = await searchContent(deps, {
      query: 'Marie Curie Warsaw',
      tenant_id: 'acme',
      profile: 'document_text_semantic',
      strategy: 'bm25_only',
      top_k: 2,
    });
    expect(found.results.map((r) => r.text)).toEqual([
      'Marie Curie was born in Warsaw in 1867.',
      'Polonium Marie Curie discovered polonium.',
    ]);
    // The title is still the hit's field.
    expect(found.results[0]!.fields.title).toBe('Marie Curie');
  });

  it('keeps the text of untitled hits (code) as it is, and a title when it is all there is', () => {
    const code = ['symbol', 'docstring', 'text'];
    expect(hitText({ symbol: 'parse', text: '# a comment\ndef parse(): pass' }, code)).toBe(
      'parse\n# a comment\ndef parse(): pass',
    );
    expect(hitText({ title: 'photo.jpg', caption: '' }, ['title', 'caption', 'ocr_text'])).toBe('photo.jpg');
    expect(hitText({ title: 'notes.md', text: '# Plan\n\n- step one' }, ['title', 'text'])).toBe(
      'Plan\n\n- step one',
    );
  });

  it('refuses an unknown profile and an unregistered tenant, writing nothing', async () => {
    await expect(
      indexDocuments(deps, { tenant: 'acme', profile: 'nope', sourceDocId: 'x', documents: docs(1, 'x') }),
    ).rejects.toThrow(/Unknown profile 'nope'/);
    await expect(
      indexDocuments(deps, {
        tenant: 'ghost',
        profile: 'document_text_semantic',
        sourceDocId: 'x',
        documents: docs(1, 'x'),
      }),
    ).rejects.toThrow(/Tenant 'ghost:ghost' not registered/);
    expect(await deps.tenancy.backend.listSchemas()).not.toContain('document_text_ghost_ghost');
  });
});
