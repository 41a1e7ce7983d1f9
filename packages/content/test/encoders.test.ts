/** The encoder of a table's vectors: recorded on the first write, other encoders refused, older tables checked. */
import { EncoderMismatchError, HashedTokenEncoder } from '@tessera/encoders';
import { createTenant } from '@tessera/tenancy';
import { fakeDomains } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import { UNRECORDED } from '../src/encoders';
import { type ContentDeps, indexDocuments, searchContent } from '../src/index';

const docs = (n: number, word: string) =>
  Array.from({ length: n }, (_, i) => ({
    fields: { title: 'notes.md', text: `${word} paragraph number ${i} about wombats` },
  }));

/** Fake domains whose content encoder can be swapped, and a tenant. */
async function setup(tenant: string) {
  const base = fakeDomains().content;
  let encoder = new HashedTokenEncoder();
  const deps: ContentDeps = { ...base, encoderFor: () => encoder };
  await createTenant(deps.tenancy, { tenant_id: tenant, created_by: 'test' });
  const use = (next: HashedTokenEncoder) => {
    encoder = next;
  };
  return { deps, use, schema: `document_text_${tenant}_${tenant}` };
}

const search = (deps: ContentDeps, tenant: string, strategy: 'bm25_only' | 'hybrid_bm25_float') =>
  searchContent(deps, {
    query: 'wombats',
    profile: 'document_text_semantic',
    tenant_id: tenant,
    top_k: 5,
    strategy,
  });

describe('the encoder of a table', () => {
  it('is recorded on the first write; writing or searching vectors with another is refused with 409', async () => {
    const { deps, use, schema } = await setup('enc');
    const first = new HashedTokenEncoder();
    await indexDocuments(deps, {
      tenant: 'enc',
      profile: 'document_text_semantic',
      sourceDocId: 'a.md',
      documents: docs(2, 'one'),
    });
    expect(await deps.index.encoderOf(schema)).toBe(first.fingerprint);

    const other = new HashedTokenEncoder({ trigramWeight: 0.5 });
    use(other);
    expect(other.fingerprint).not.toBe(first.fingerprint);
    const write = indexDocuments(deps, {
      tenant: 'enc',
      profile: 'document_text_semantic',
      sourceDocId: 'b.md',
      documents: docs(1, 'two'),
    });
    await expect(write).rejects.toBeInstanceOf(EncoderMismatchError);
    await expect(write).rejects.toMatchObject({ status: 409 });
    await expect(search(deps, 'enc', 'hybrid_bm25_float')).rejects.toMatchObject({ status: 409 });
    // Nothing was written, and text alone still answers.
    expect(await deps.index.count(schema)).toBe(2);
    expect((await search(deps, 'enc', 'bm25_only')).count).toBe(2);

    use(first);
    expect((await search(deps, 'enc', 'hybrid_bm25_float')).count).toBe(2);
  });

  it('takes a table made before records for its configured encoder when its stored codes are that encoder’s, else refuses it', async () => {
    const { deps, use, schema } = await setup('old');
    await indexDocuments(deps, {
      tenant: 'old',
      profile: 'document_text_semantic',
      sourceDocId: 'a.md',
      documents: docs(3, 'old'),
    });
    // As a table written before encoders were recorded.
    const table = deps.tenancy.backend as unknown as { db: { tables: Map<string, { encoder?: string }> } };
    table.db.tables.get(schema)!.encoder = undefined;

    use(new HashedTokenEncoder({ trigramWeight: 0.5 }));
    const refused = search(deps, 'old', 'hybrid_bm25_float');
    await expect(refused).rejects.toBeInstanceOf(EncoderMismatchError);
    await expect(refused).rejects.toThrow(UNRECORDED);

    const same = new HashedTokenEncoder();
    use(same);
    expect((await search(deps, 'old', 'hybrid_bm25_float')).count).toBe(3);
    expect(await deps.index.encoderOf(schema)).toBeUndefined();
    await indexDocuments(deps, {
      tenant: 'old',
      profile: 'document_text_semantic',
      sourceDocId: 'b.md',
      documents: docs(1, 'new'),
    });
    expect(await deps.index.encoderOf(schema)).toBe(same.fingerprint);
  });
});
