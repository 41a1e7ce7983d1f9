import { MAX_BINARY_BODY_BYTES } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { BATCH_BYTES, batches, FRAMING_BYTES } from '../src/uploads';
import type { WalkedFile } from '../src/walk';

const file = (name: string, size: number): WalkedFile => ({ relative: name, absolute: `/x/${name}`, size });

describe('batches', () => {
  it("keeps every batch's files within what a direct upload may carry through API Gateway to Lambda", () => {
    // The walk keeps files up to 1 MiB: a tree of them filled 8 MiB batches, twice what Lambda takes base64-encoded.
    const files = Array.from({ length: 40 }, (_, i) => file(`f${i}.py`, 1024 * 1024 - i));
    const planned = batches(files);
    expect(planned.flat()).toEqual(files);
    for (const batch of planned) {
      expect(batch.reduce((sum, f) => sum + f.size, 0)).toBeLessThanOrEqual(BATCH_BYTES);
    }
    expect(BATCH_BYTES + FRAMING_BYTES).toBe(MAX_BINARY_BODY_BYTES);
    // 256 parts of framing (boundary, headers, a long path) fit in what is left.
    expect(FRAMING_BYTES).toBeGreaterThan(256 * 1000);
  });

  it('puts a file larger than a batch on its own (it goes up presigned)', () => {
    const planned = batches([file('a.py', 10), file('huge.py', BATCH_BYTES + 1), file('b.py', 10)]);
    expect(planned.map((batch) => batch.map((f) => f.relative))).toEqual([['a.py'], ['huge.py'], ['b.py']]);
  });
});
