import { describe, expect, it } from 'vitest';
import { BINARY_BYTES, HashedTokenEncoder, packSignBits, TOKEN_DIM } from '../src/index';
import { dot, maxSim, rowNorms } from './support';

const doc =
  'The ingestion worker splits each uploaded document into chunks, encodes every chunk with the ' +
  'multi-vector encoder and writes the token vectors into the tenant search index.';

describe('HashedTokenEncoder', () => {
  it('names itself as the embedded hashed-token encoder', () => {
    expect(new HashedTokenEncoder().name).toBe('embedded:hashed-token-128');
  });

  it('is deterministic across instances', async () => {
    const [a] = await new HashedTokenEncoder().encode([doc], 'document');
    const [b] = await new HashedTokenEncoder().encode([doc], 'document');
    expect(a!.tokens).toBeGreaterThan(10);
    expect(b!.vectors).toEqual(a!.vectors);
    expect(b!.binary).toEqual(a!.binary);
  });

  it('returns unit-length rows and the packed sign bits of exactly those rows', async () => {
    const [result] = await new HashedTokenEncoder().encode([doc], 'document');
    expect(result!.vectors).toHaveLength(result!.tokens * TOKEN_DIM);
    expect(result!.binary).toHaveLength(result!.tokens * BINARY_BYTES);
    for (const norm of rowNorms(result!.vectors, TOKEN_DIM)) expect(norm).toBeCloseTo(1, 5);
    expect(result!.binary).toEqual(packSignBits(result!.vectors));
  });

  it('caps queries at 32 tokens and documents at 128 distinct tokens', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const encoder = new HashedTokenEncoder();
    const [query] = await encoder.encode([words], 'query');
    const [document] = await encoder.encode([words], 'document');
    expect(query!.tokens).toBe(32);
    expect(document!.tokens).toBe(128);
    // the first token of both is word0
    expect(query!.vectors.slice(0, TOKEN_DIM)).toEqual(document!.vectors.slice(0, TOKEN_DIM));
  });

  it('takes other caps from its options', async () => {
    const encoder = new HashedTokenEncoder({ maxQueryTokens: 3, maxDocumentTokens: 5 });
    const text = 'alpha beta gamma delta epsilon zeta eta theta';
    const [query, document] = [
      (await encoder.encode([text], 'query'))[0]!,
      (await encoder.encode([text], 'document'))[0]!,
    ];
    expect([query.tokens, document.tokens]).toEqual([3, 5]);
  });

  it('encodes only distinct tokens, dropping stop words and 1-character tokens', async () => {
    const encoder = new HashedTokenEncoder();
    const [result] = await encoder.encode(
      ['the index of a tenant: index x tenant', 'index tenant'],
      'document',
    );
    const [bare] = await encoder.encode(['index tenant'], 'document');
    expect(result!.tokens).toBe(2);
    expect(result!.vectors).toEqual(bare!.vectors);
  });

  it('splits camelCase identifiers into the whole identifier and its parts', async () => {
    const encoder = new HashedTokenEncoder();
    const [identifier] = await encoder.encode(['parseTenantId'], 'document');
    const [words] = await encoder.encode(['parsetenantid parse tenant id'], 'document');
    expect(identifier!.tokens).toBe(4);
    expect(identifier!.vectors).toEqual(words!.vectors);
  });

  it('scores a document sharing the query words above an unrelated one (MaxSim)', async () => {
    const encoder = new HashedTokenEncoder();
    const [query] = await encoder.encode(['how are chunks written to the tenant search index'], 'query');
    const [related, unrelated] = await encoder.encode(
      [doc, 'Bananas ripen faster next to apples because the apples release ethylene gas in the kitchen.'],
      'document',
    );
    const score = maxSim(query!, related!);
    expect(score).toBeGreaterThan(query!.tokens * 0.6);
    expect(score).toBeGreaterThan(maxSim(query!, unrelated!) + 2);
  });

  it('places spelling variants closer than unrelated words', () => {
    const encoder = new HashedTokenEncoder();
    const indexing = encoder.tokenVector('indexing');
    expect(dot(indexing, encoder.tokenVector('indexed'))).toBeGreaterThan(
      dot(indexing, encoder.tokenVector('banana')) + 0.1,
    );
    expect(dot(encoder.tokenVector('tenant'), encoder.tokenVector('tenants'))).toBeGreaterThan(0.3);
    expect(dot(indexing, indexing)).toBeCloseTo(1, 5);
  });

  it('gives 0 tokens and empty arrays for a text without words', async () => {
    const results = await new HashedTokenEncoder().encode(['', '   ', 'the of a'], 'query');
    for (const result of results) {
      expect(result).toEqual({ tokens: 0, vectors: new Float32Array(0), binary: new Uint8Array(0) });
    }
  });

  it('keeps encoding the same vectors after its cache starts over', async () => {
    const small = new HashedTokenEncoder({ cacheSize: 4 });
    const text = 'alpha beta gamma delta epsilon zeta eta theta';
    const [first] = await small.encode([text], 'document');
    const [second] = await small.encode([text], 'document');
    const [reference] = await new HashedTokenEncoder().encode([text], 'document');
    expect(first!.vectors).toEqual(reference!.vectors);
    expect(second!.vectors).toEqual(reference!.vectors);
    expect(second!.binary).toEqual(reference!.binary);
  });
});
