/**
 * The LanceDB wiki store with DynamoDB page locks passes the wiki store contract: a table in a temporary
 * directory, the locks in the emulated DynamoDB, and a second store with its own connection and locks (as
 * another process holds them) writing one page at the same time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { LanceDatabase, LanceSearchBackend, lanceConnection } from '@tessera/search';
import { wikiStoreContract } from '@tessera/testing/contracts';
import { schemaCatalog } from '@tessera/testing/fakes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPageLocks, LanceWikiStore } from '../src/index';

const dir = mkdtempSync(path.join(tmpdir(), 'wiki-'));
const template = schemaCatalog.get('wiki')!;
let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'wiki-locks-')));
});

afterAll(async () => {
  await emulators?.stop();
});

wikiStoreContract('LanceWikiStore', () => ({
  store: new LanceWikiStore(lanceConnection(dir), template, new DynamoPageLocks()),
  other: () => new LanceWikiStore(new LanceDatabase(dir), template, new DynamoPageLocks()),
  deploy: (schema) => new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template),
}));

describe('DynamoPageLocks', () => {
  it('runs the holders of one page one at a time across lock instances, and takes over an expired lease', async () => {
    const a = new DynamoPageLocks(undefined, { leaseMs: 5_000, waitMs: 10_000, pollMs: 5 });
    const b = new DynamoPageLocks(undefined, { leaseMs: 5_000, waitMs: 10_000, pollMs: 5 });
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).hold('scope_x', 'page', async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);

    // A holder that died: its lease lapses and the next writer goes ahead.
    let clock = Date.now();
    const dead = new DynamoPageLocks(undefined, { leaseMs: 1_000, waitMs: 10_000, pollMs: 5 }, () => clock);
    const stuck = dead.hold('scope_y', 'page', () => new Promise(() => {}));
    void stuck;
    await new Promise((resolve) => setTimeout(resolve, 50));
    clock += 2_000;
    const later = new DynamoPageLocks(undefined, { leaseMs: 1_000, waitMs: 10_000, pollMs: 5 }, () => clock);
    await expect(later.hold('scope_y', 'page', async () => 'taken')).resolves.toBe('taken');
    await later.purge('scope_y');
  });
});
