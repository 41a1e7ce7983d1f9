import { describe, expect, it } from 'vitest';
import { distinctTokens, tokenize } from '../src/index';

describe('tokenize', () => {
  it('lower-cases words and drops stop words and 1-character tokens', () => {
    expect(tokenize('The index of a Tenant is rebuilt in 5 minutes, x y z')).toEqual([
      'index',
      'tenant',
      'rebuilt',
      'minutes',
    ]);
  });

  it('keeps a camelCase identifier whole and adds its parts', () => {
    expect(tokenize('parseTenantId')).toEqual(['parsetenantid', 'parse', 'tenant', 'id']);
    expect(tokenize('HTTPServer utf8Decode')).toEqual([
      'httpserver',
      'http',
      'server',
      'utf8decode',
      'utf8',
      'decode',
    ]);
  });

  it('splits snake_case the same way, so both conventions share tokens', () => {
    expect(tokenize('parse_tenant_id')).toEqual(tokenize('parseTenantId'));
    expect(tokenize('__init__')).toEqual(['init']);
  });

  it('folds accents and compatibility characters', () => {
    expect(tokenize('Café naïve ﬁle Ünïcödé')).toEqual(['cafe', 'naive', 'file', 'unicode']);
  });
});

describe('distinctTokens', () => {
  it('keeps first occurrences in order up to the limit', () => {
    expect(distinctTokens('search index search tenant index graph', 10)).toEqual([
      'search',
      'index',
      'tenant',
      'graph',
    ]);
    expect(distinctTokens('search index search tenant index graph', 2)).toEqual(['search', 'index']);
  });
});
