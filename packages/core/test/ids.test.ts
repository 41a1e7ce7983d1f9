import { describe, expect, it } from 'vitest';
import { BadRequestError, canonicalTenantId, parseTenantId, tenantSchemaName } from '../src/index';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return (error as Error).message;
  }
  throw new Error('expected a BadRequestError');
}

describe('parseTenantId', () => {
  it('canonicalizes a bare id to id:id', () => {
    expect(parseTenantId('acme')).toEqual({ orgId: 'acme', tenantName: 'acme', full: 'acme:acme' });
    expect(canonicalTenantId('acme')).toBe(canonicalTenantId('acme:acme'));
  });

  it('keeps a full id and is case-sensitive', () => {
    expect(parseTenantId('Acme:Prod_2').full).toBe('Acme:Prod_2');
  });

  it.each([
    ['', 'org_id cannot be empty'],
    ['a-b', "Invalid org_id 'a-b': only alphanumeric and underscore allowed"],
    ['a.b', "Invalid org_id 'a.b': only alphanumeric and underscore allowed"],
    ['a b', "Invalid org_id 'a b': only alphanumeric and underscore allowed"],
    ['café', "Invalid org_id 'café': only alphanumeric and underscore allowed"],
    ['acme:pro-d', "Invalid tenant_name 'pro-d': only alphanumeric and underscore allowed"],
    ['a:b:c', "Invalid tenant_id format: a:b:c. Expected 'org:tenant' with single colon"],
    [':b', 'Invalid tenant_id format: :b. Both org and tenant parts must be non-empty'],
    ['a:', 'Invalid tenant_id format: a:. Both org and tenant parts must be non-empty'],
  ])('rejects %j with the spec message', (raw, expected) => {
    expect(message(() => parseTenantId(raw))).toBe(expected);
  });

  it('rejects names longer than 64 characters with a clear message', () => {
    expect(message(() => parseTenantId('a'.repeat(65)))).toMatch(/at most 64 characters allowed \(got 65\)/);
    expect(parseTenantId('a'.repeat(64)).orgId).toHaveLength(64);
  });

  it('shortens very long ids in messages', () => {
    expect(message(() => parseTenantId(`${'x'.repeat(5000)}-`)).length).toBeLessThan(200);
  });
});

describe('tenantSchemaName', () => {
  it('joins base, org and tenant with underscores', () => {
    expect(tenantSchemaName('video_frames', parseTenantId('acme'))).toBe('video_frames_acme_acme');
    expect(tenantSchemaName('wiki', parseTenantId('acme:prod'))).toBe('wiki_acme_prod');
  });
});
