import { describe, expect, it } from 'vitest';
import { jobOfIncomingKey } from '../src';
import { cleanName, incomingKey, tenantPrefix, uploadKey } from '../src/keys';

describe('tenant keys', () => {
  it('never lets one tenant prefix hold another tenant keys, whatever their names share', () => {
    // `a:b_c` and `a_b:c` share schema names; `a:b` is a prefix of `a:bc` as text.
    const tenants = ['a:b_c', 'a_b:c', 'a:b', 'a:bc', 'ab:c', 'a_b_c:a_b_c'];
    for (const one of tenants) {
      for (const other of tenants.filter((t) => t !== one)) {
        expect(tenantPrefix(other).startsWith(tenantPrefix(one))).toBe(false);
        expect(uploadKey(other, 'ingest_0').startsWith(`jobs/${one}/`)).toBe(false);
        expect(incomingKey(other, 'ingest_0', 'f.md').startsWith(`incoming/${one}/`)).toBe(false);
      }
    }
  });
});

describe('cleanName', () => {
  it('keeps a relative path with forward slashes', () => {
    expect(cleanName('src\\lib/a.ts')).toBe('src/lib/a.ts');
  });

  it('drops leading slashes, dot and dot-dot segments so a name cannot climb out of its job', () => {
    expect(cleanName('/../../etc/./passwd')).toBe('etc/passwd');
  });

  it('answers undefined when nothing usable remains or the name holds control characters', () => {
    expect(cleanName('../..')).toBeUndefined();
    expect(cleanName('')).toBeUndefined();
    expect(cleanName('a\nb.md')).toBeUndefined();
    expect(cleanName('x'.repeat(1001))).toBeUndefined();
  });
});

describe('jobOfIncomingKey', () => {
  it('answers the job of a presigned upload key', () => {
    expect(jobOfIncomingKey(incomingKey('acme:acme', 'ingest_0123456789abcdef', 'docs/a b.md'))).toBe(
      'ingest_0123456789abcdef',
    );
  });

  it('answers undefined for keys outside incoming/ or without a job id', () => {
    expect(jobOfIncomingKey('jobs/acme:acme/ingest_0123456789abcdef/0')).toBeUndefined();
    expect(jobOfIncomingKey('incoming/acme:acme/not-a-job/a.md')).toBeUndefined();
  });
});
