import { describe, expect, it } from 'vitest';
import { jobOfIncomingKey } from '../src';
import { cleanName, incomingKey } from '../src/keys';

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
