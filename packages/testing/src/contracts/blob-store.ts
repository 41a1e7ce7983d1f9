/** The contract of `BlobStore`: what ingestion relies on of the store its uploads are kept in. */
import type { BlobStore } from '@tessera/ingestion';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export interface BlobStoreSubject {
  store: BlobStore;
  /** A client's PUT to a presigned URL; true when the store took it. */
  putPresigned(url: string, body: Uint8Array, headers: Record<string, string>): Promise<boolean>;
  /**
   * Whether the store behind the subject checks the signed length. S3 does; s3rver, the local emulator,
   * checks no signed header, so the S3 adapter's run against it leaves that case out.
   */
  checksSignedLength: boolean;
}

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

export function blobStoreContract(label: string, subject: () => BlobStoreSubject): void {
  describe(`${label} (BlobStore contract)`, () => {
    it('answers what was put, a byte range of it, and fails for a key that holds nothing', async () => {
      const { store } = subject();
      const key = `${unique('blobs')}/bundle`;
      await store.put(key, bytes('hello, ranged world'));
      expect(text(await store.get(key))).toBe('hello, ranged world');
      expect(text(await store.get(key, { start: 7, end: 13 }))).toBe('ranged');
      await expect(store.get(`${key}-absent`)).rejects.toThrow();
      expect(store.describe(key)).toContain(key);
    });

    it('tells which keys exist, lists a prefix in key order with sizes, and deletes', async () => {
      const { store } = subject();
      const prefix = `${unique('list')}/`;
      await store.put(`${prefix}b.md`, bytes('bb'));
      await store.put(`${prefix}a.md`, bytes('a'));
      await store.put(`${prefix}sub/c.md`, bytes('ccc'));
      await store.put(`${prefix.slice(0, -1)}x/other.md`, bytes('x'));
      expect(await store.list(prefix)).toEqual([
        { key: `${prefix}a.md`, size: 1 },
        { key: `${prefix}b.md`, size: 2 },
        { key: `${prefix}sub/c.md`, size: 3 },
      ]);
      expect(await store.exists(`${prefix}a.md`)).toBe(true);
      await store.delete([`${prefix}a.md`, `${prefix}never.md`]);
      expect(await store.exists(`${prefix}a.md`)).toBe(false);
      expect((await store.list(prefix)).map((entry) => entry.key)).toEqual([
        `${prefix}b.md`,
        `${prefix}sub/c.md`,
      ]);
    });

    it('takes a presigned PUT of the signed length and refuses another length', async () => {
      const { store, putPresigned, checksSignedLength } = subject();
      const key = `${unique('presigned')}/notes.md`;
      const url = await store.presignPut(key, { size: 5, expiresSeconds: 60 });
      if (checksSignedLength) {
        expect(await putPresigned(url, bytes('toolong'), { 'content-length': '7' })).toBe(false);
        expect(await store.exists(key)).toBe(false);
      }
      expect(await putPresigned(url, bytes('right'), { 'content-length': '5' })).toBe(true);
      expect(text(await store.get(key))).toBe('right');
    });
  });
}
