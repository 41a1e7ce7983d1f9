import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BINARY_BYTES,
  defaultWordVectorsPath,
  GloveLexicalEncoder,
  HashedTokenEncoder,
  packSignBits,
  packWordVectors,
  projectionMatrix,
  readWordVectors,
  TOKEN_DIM,
} from '../src/index';
import { dot, maxSim, rowNorms } from './support';

// One encoder over the shipped vectors for the whole file: loading them once keeps the tests fast.
const shipped = readWordVectors(readFileSync(defaultWordVectorsPath()));
const encoder = new GloveLexicalEncoder({ wordVectors: shipped });

describe('GloveLexicalEncoder', () => {
  it('names itself honestly and fingerprints the vectors file and the mixing weight', () => {
    expect(encoder.name).toBe('embedded:glove-lexical-128');
    expect(encoder.fingerprint).toMatch(/^embedded:glove-lexical-128@1;[0-9a-f]{16};s=0\.\d+$/);
    expect(encoder.fingerprint).toContain(shipped.sha256.slice(0, 16));
    const other = new GloveLexicalEncoder({ wordVectors: shipped, semanticWeight: 0.2 });
    expect(other.fingerprint).not.toBe(encoder.fingerprint);
    // Query-side settings leave document vectors as they are: same fingerprint.
    expect(new GloveLexicalEncoder({ wordVectors: shipped, weightFloor: 1 }).fingerprint).toBe(
      encoder.fingerprint,
    );
  });

  it('ships about 50,000 words of 100 dimensions in a file of a few MB', () => {
    expect(shipped.header).toMatchObject({ words: 50_000, dim: 100 });
    expect(readFileSync(defaultWordVectorsPath()).length).toBeLessThan(6 * 1024 * 1024);
  });

  it('places synonyms and related words close, unrelated words apart', () => {
    const similar = dot(encoder.tokenVector('aircraft'), encoder.tokenVector('airplane'));
    const related = dot(encoder.tokenVector('velocity'), encoder.tokenVector('speed'));
    const unrelated = dot(encoder.tokenVector('aircraft'), encoder.tokenVector('banana'));
    expect(similar).toBeGreaterThan(0.3);
    expect(related).toBeGreaterThan(0.2);
    expect(unrelated).toBeLessThan(0.15);
    expect(similar).toBeGreaterThan(unrelated + 0.25);
    // The hashed encoder sees none of it.
    const hashed = new HashedTokenEncoder();
    expect(dot(hashed.tokenVector('aircraft'), hashed.tokenVector('airplane'))).toBeLessThan(0.25);
  });

  it('still matches exact words, spelling variants and identifiers it has no vector for', () => {
    expect(dot(encoder.tokenVector('parsetenantid'), encoder.tokenVector('parsetenantid'))).toBeCloseTo(1, 5);
    expect(encoder.rankOf('parsetenantid')).toBeUndefined();
    // An unknown word is its lexical vector alone: the hashed encoder's.
    expect(encoder.tokenVector('parsetenantid')).toEqual(
      new HashedTokenEncoder().tokenVector('parsetenantid'),
    );
    expect(dot(encoder.tokenVector('tenants'), encoder.tokenVector('tenant'))).toBeGreaterThan(0.3);
  });

  it('finds a paraphrase that shares no word with the query above an unrelated text (MaxSim)', async () => {
    const [query] = await encoder.encode(['where do fruits mature quickly'], 'query');
    const [bananas, engines] = await encoder.encode(
      [
        'Bananas ripen faster next to apples, which release ethylene.',
        'Jet engines compress incoming air before combustion.',
      ],
      'document',
    );
    expect(maxSim(query!, bananas!)).toBeGreaterThan(maxSim(query!, engines!) + 0.2);
  });

  it('gives unit document rows and the packed sign bits of exactly those rows', async () => {
    const [doc] = await encoder.encode(
      ['Pressure distributions on a swept wing at supersonic speeds, parseTenantId'],
      'document',
    );
    expect(doc!.tokens).toBeGreaterThan(5);
    expect(doc!.vectors).toHaveLength(doc!.tokens * TOKEN_DIM);
    expect(doc!.binary).toHaveLength(doc!.tokens * BINARY_BYTES);
    for (const norm of rowNorms(doc!.vectors, TOKEN_DIM)) expect(norm).toBeCloseTo(1, 5);
    expect(doc!.binary).toEqual(packSignBits(doc!.vectors));
  });

  it('weighs query tokens by rarity through their rows length, and keeps their sign bits', async () => {
    const text = 'what are the structural problems of aeroelastic models';
    const [query] = await encoder.encode([text], 'query');
    const tokens = encoder.tokensOf(text, 'query');
    const norms = rowNorms(query!.vectors, TOKEN_DIM);
    const weight = (token: string) => norms[tokens.indexOf(token)]!;
    expect(weight('aeroelastic')).toBeCloseTo(1, 5);
    expect(weight('problems')).toBeLessThan(weight('structural'));
    expect(weight('structural')).toBeLessThanOrEqual(1 + 1e-6);
    const [doc] = await encoder.encode([tokens.join(' ')], 'document');
    expect(query!.binary).toEqual(doc!.binary);
    const flat = new GloveLexicalEncoder({ wordVectors: shipped, weightFloor: 1 });
    for (const norm of rowNorms((await flat.encode([text], 'query'))[0]!.vectors, TOKEN_DIM)) {
      expect(norm).toBeCloseTo(1, 5);
    }
  });

  it('keeps the rarest tokens of a text longer than its cap, in reading order', () => {
    const small = new GloveLexicalEncoder({ wordVectors: shipped, maxQueryTokens: 3 });
    const words = ['year', 'aeroelastic', 'people', 'supersonic', 'zzqunknown', 'government'];
    expect(small.rankOf('supersonic')).toBeGreaterThan(small.rankOf('government')!);
    expect(small.tokensOf(words.join(' '), 'query')).toEqual(['aeroelastic', 'supersonic', 'zzqunknown']);
  });

  it('is deterministic, and gives 0 tokens for a text without words', async () => {
    const text = 'Boundary layer transition on a flat plate at hypersonic Mach numbers';
    const [a] = await encoder.encode([text], 'document');
    const [b] = await new GloveLexicalEncoder({ wordVectors: shipped, cacheSize: 3 }).encode(
      [text],
      'document',
    );
    expect(b!.vectors).toEqual(a!.vectors);
    expect(b!.binary).toEqual(a!.binary);
    const [empty] = await encoder.encode(['the of a'], 'query');
    expect(empty).toEqual({ tokens: 0, vectors: new Float32Array(0), binary: new Uint8Array(0) });
  });

  it('reads its vectors from a path, and says what is wrong with a bad one', async () => {
    const fromPath = new GloveLexicalEncoder({ wordVectors: defaultWordVectorsPath() });
    expect(fromPath.fingerprint).toBe(encoder.fingerprint);
    const broken = new GloveLexicalEncoder({ wordVectors: '/nonexistent/vectors.i8' });
    await expect(broken.encode(['wing'], 'document')).rejects.toThrow(/nonexistent\/vectors\.i8/);
  });

  it('works on any packed vectors, their words getting the projected meaning', async () => {
    // Two 4-dimension words pointing the same way: as similar as the semantic share allows.
    const tiny = readWordVectors(
      packWordVectors(
        ['lift', 'uplift', 'drag'],
        Float32Array.from([1, 0, 0, 0, 1, 0.05, 0, 0, 0, 0, 1, 0]),
        4,
      ),
    );
    const mini = new GloveLexicalEncoder({ wordVectors: tiny, semanticWeight: 0.5 });
    expect(dot(mini.tokenVector('lift'), mini.tokenVector('uplift'))).toBeGreaterThan(0.4);
    expect(Math.abs(dot(mini.tokenVector('lift'), mini.tokenVector('drag')))).toBeLessThan(0.3);
  });
});

describe('projectionMatrix', () => {
  it('has orthonormal columns, so it keeps dot products, and is the same on every call', () => {
    const p = projectionMatrix(100);
    for (const [a, b] of [
      [0, 0],
      [0, 1],
      [37, 99],
      [99, 99],
    ] as const) {
      let sum = 0;
      for (let r = 0; r < TOKEN_DIM; r++) sum += p[r * 100 + a]! * p[r * 100 + b]!;
      expect(sum).toBeCloseTo(a === b ? 1 : 0, 10);
    }
    expect(projectionMatrix(100)).toEqual(p);
    expect(() => projectionMatrix(129)).toThrow(RangeError);
  });
});
